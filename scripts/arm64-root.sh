#!/bin/bash
# SPDX-License-Identifier: MIT
# arm64-root.sh - set up what `make ARCH=aarch64` and `make check-arm64` need
# on an x86-64 Debian host (doc/arm64.md):
#   1. the host packages (scripts/deps.sh --arm64: the cross gcc, mmdebstrap,
#      qemu-user-static);
#   2. an arm64 root made from Debian's own arm64 packages: the -dev packages
#      spool links (libc, libelf, libdw, libzstd, libstdc++ for the
#      demangler) and their libraries, which the cross build uses as its
#      --sysroot and qemu-user as its library prefix (QEMU_LD_PREFIX). Made
#      with mmdebstrap's extract variant: the packages are unpacked, no
#      maintainer script runs, so nothing is emulated (about 10 s, 120 MB);
#   3. qemu-aarch64 registered with binfmt_misc, so the kernel runs aarch64
#      programs (spool starts the program, which may start others).
#
#   4. with --llvm, a second root DIR-llvm with Debian's libllvm14:arm64 (and
#      its libraries): make ARCH=aarch64 then builds spool-ccopt for the
#      board, so the board's spool cc has an optimizer (about 7 s, 184 MB;
#      kept apart so the main root, and its stamp, do not change).
#
#   scripts/arm64-root.sh [--llvm] [DIR]   DIR: $ARM64_ROOT, default /var/cache/spool-arm64
#
# Run as root. Does nothing that is done already (a root with the same
# package list is kept), so CI can call it every time. The suite is the
# host's own Debian release (the root's libraries match the host's tools).
set -euo pipefail

LLVM=0
if [ "${1:-}" = --llvm ]; then
	LLVM=1
	shift
fi
ROOT="${1:-${ARM64_ROOT:-/var/cache/spool-arm64}}"
# gzip, xz-utils, sqlite3: real Debian arm64 programs that tests/real/
# 113-a64-debian-probe.t probes (a few MB; nothing of spool links them)
PKGS="libc6-dev,libelf-dev,libdw-dev,libzstd-dev,libstdc++-12-dev,libgcc-12-dev,gzip,xz-utils,sqlite3"
HERE="$(cd "$(dirname "$0")" && pwd)"

if [ "$(id -u)" -ne 0 ]; then
	echo "arm64-root.sh: run as root (it installs packages, writes $ROOT, registers binfmt)" >&2
	exit 1
fi
"$HERE/deps.sh" --arm64

# --- the root ---
SUITE="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
STAMP="$ROOT/.spool-arm64-root"
WANT="suite=$SUITE packages=$PKGS"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
	echo "arm64-root.sh: $ROOT is ready"
else
	echo "arm64-root.sh: making $ROOT (Debian $SUITE arm64: $PKGS)"
	rm -rf "$ROOT.tmp"
	mkdir -p "$(dirname "$ROOT")"
	mmdebstrap --quiet --arch=arm64 --variant=extract --include="$PKGS" "$SUITE" "$ROOT.tmp"
	echo "$WANT" >"$ROOT.tmp/.spool-arm64-root"
	# replaced whole: a half-made root is never used
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
fi

# --- the board's LLVM (--llvm): libLLVM-14.so.1 for spool-ccopt ---
if [ "$LLVM" = 1 ]; then
	LROOT="$ROOT-llvm"
	LWANT="suite=$SUITE packages=libllvm14"
	if [ -f "$LROOT/.spool-arm64-root" ] && [ "$(cat "$LROOT/.spool-arm64-root")" = "$LWANT" ]; then
		echo "arm64-root.sh: $LROOT is ready"
	else
		echo "arm64-root.sh: making $LROOT (Debian $SUITE arm64: libllvm14)"
		rm -rf "$LROOT.tmp"
		mmdebstrap --quiet --arch=arm64 --variant=extract --include=libllvm14 "$SUITE" "$LROOT.tmp"
		echo "$LWANT" >"$LROOT.tmp/.spool-arm64-root"
		rm -rf "$LROOT"
		mv "$LROOT.tmp" "$LROOT"
	fi
fi

# --- binfmt_misc ---
BINFMT=/proc/sys/fs/binfmt_misc
if [ ! -e "$BINFMT/register" ]; then
	mount -t binfmt_misc binfmt_misc "$BINFMT"
fi
if [ ! -e "$BINFMT/qemu-aarch64" ]; then
	# Debian's own entry (flags F: the interpreter is opened now, so it
	# works in chroots and namespaces too).
	cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$BINFMT/register"
fi
if [ "$(head -n 1 "$BINFMT/qemu-aarch64")" != enabled ]; then
	echo 1 >"$BINFMT/qemu-aarch64"
fi
echo "arm64-root.sh: qemu-aarch64 registered with binfmt_misc; make ARCH=aarch64 ARM64_ROOT=$ROOT"
