#!/bin/bash
# SPDX-License-Identifier: MIT
# mkdeb.sh - build a Debian binary package of spool from a built tree:
# `make install DESTDIR=STAGE PREFIX=/usr` into a staging directory, a
# DEBIAN/control whose Depends come from dpkg-shlibdeps (the libraries the
# installed ELF files link), then dpkg-deb. Simpler and sturdier than a
# debian/ directory and dpkg-buildpackage: no debhelper, the build is the
# Makefile's own.
#
# usage: pkg/mkdeb.sh BUILD_DIR VERSION   (make deb)
# Writes BUILD_DIR/spool_VERSION_ARCH.deb and prints its path.
set -euo pipefail

O=${1:?usage: mkdeb.sh BUILD_DIR VERSION}
VERSION=${2:?usage: mkdeb.sh BUILD_DIR VERSION}
ARCH=$(dpkg --print-architecture)
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/spool-deb.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

make -s O="$O" install DESTDIR="$STAGE/root" PREFIX=/usr >/dev/null
gzip -9n "$STAGE"/root/usr/share/man/man1/*.1

# dpkg-shlibdeps wants a debian/control in its working directory.
mkdir -p "$STAGE/src/debian"
printf 'Source: spool\n\nPackage: spool\nArchitecture: any\n' >"$STAGE/src/debian/control"
mapfile -t elves < <(find "$STAGE/root" -type f -perm -u+x -exec sh -c \
	'head -c 4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
depends=$(cd "$STAGE/src" && dpkg-shlibdeps -O "${elves[@]}" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')

mkdir -p "$STAGE/root/DEBIAN"
chmod 755 "$STAGE/root" "$STAGE/root/DEBIAN"
size=$(du -sk "$STAGE/root/usr" | cut -f1)
cat >"$STAGE/root/DEBIAN/control" <<CTRL
Package: spool
Version: $VERSION
Architecture: $ARCH
Maintainer: spool developers <spool@localhost>
Installed-Size: $size
Depends: $depends
Recommends: babeltrace2, gdb, clang-14
Section: devel
Priority: optional
Homepage: https://localhost/spool
Description: record, replay, probe and profile multithreaded programs
 spool runs a program with its agent preloaded and shows what its threads
 do: lock contention (spool locks), function probes on unmodified binaries
 (spool probe), the thread path (spool path), deterministic record and
 replay (spool record, spool replay), and exports for Perfetto and Chrome.
CTRL

out="$O/spool_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz -b "$STAGE/root" "$out.tmp" >/dev/null
mv "$out.tmp" "$out"
echo "$out"
