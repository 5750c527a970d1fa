#!/bin/bash
# SPDX-License-Identifier: MIT
# check-dist.sh - the slow check of `make dist` and `make deb` (make
# check-dist; CI can run it after make check): build spool from the
# tarball alone, make the Debian package there, install it with dpkg into a
# scratch root (dpkg --root: its own package database, so dpkg checks the
# package as it installs it; --force-depends, the libraries being the
# host's) and run the installed spool as a user would: --version, a man
# page, and `spool locks` on a small threaded program (its agent found in
# ROOT/usr/lib/spool); then purge it, which must leave no file of it.
# Prints what it checks; exits non-zero on the first failure.
#
# usage: pkg/check-dist.sh BUILD_DIR VERSION
set -euo pipefail

O=${1:?usage: check-dist.sh BUILD_DIR VERSION}
VERSION=${2:?usage: check-dist.sh BUILD_DIR VERSION}
W=$(mktemp -d "${TMPDIR:-/tmp}/spool-check-dist.XXXXXX")
trap 'rm -rf "$W"' EXIT
step() { echo "check-dist: $*"; }

step "make dist"
make -s O="$O" dist DIST="$W/spool-$VERSION.tar.gz" >/dev/null
tar -C "$W" -xzf "$W/spool-$VERSION.tar.gz"
[ -f "$W/spool-$VERSION/Makefile" ] || { echo "no spool-$VERSION/Makefile in the tarball"; exit 1; }

step "build from the tarball (no git)"
(cd "$W/spool-$VERSION" && rm -rf .git && make -s -j2 all >"$W/build.log" 2>&1) ||
	{ tail -20 "$W/build.log"; exit 1; }

step "make deb"
deb=$(cd "$W/spool-$VERSION" && make -s deb | tail -1)
deb="$W/spool-$VERSION/$deb"
[ -f "$deb" ] || { echo "make deb wrote no package"; exit 1; }
# Each output is read whole before it is searched: with pipefail, grep -q
# closing the pipe early can fail the writer with SIGPIPE, and the check
# with it (seen in CI).
info=$(dpkg-deb -I "$deb")
grep -q "Version: $VERSION" <<<"$info" || { echo "$info"; echo "package version is not $VERSION"; exit 1; }

step "dpkg -i into a scratch root"
R="$W/root"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: >"$R/var/lib/dpkg/status"
DPKG=(dpkg --root="$R" --force-not-root)
"${DPKG[@]}" --force-depends -i "$deb" >"$W/dpkg.log" 2>&1 ||
	{ cat "$W/dpkg.log"; echo "dpkg could not install the package"; exit 1; }
status=$("${DPKG[@]}" -s spool 2>&1)
grep -q "^Status: install ok installed" <<<"$status" || { echo "$status"; echo "dpkg says spool is not installed"; exit 1; }
for f in usr/bin/spool usr/lib/spool/libspool-agent.so usr/share/man/man1/spool.1.gz \
	usr/share/man/man1/spool-locks.1.gz usr/share/bash-completion/completions/spool; do
	[ -e "$R/$f" ] || { echo "the package has no /$f"; exit 1; }
done
ver=$("$R/usr/bin/spool" --version)
grep -q "^spool $VERSION$" <<<"$ver" || { echo "$ver"; echo "spool --version is not $VERSION"; exit 1; }
page=$(LC_ALL=C MANWIDTH=80 man -l "$R/usr/share/man/man1/spool-locks.1.gz" 2>/dev/null)
grep -q -- --ring-size <<<"$page" ||
	{ echo "man -l spool-locks.1.gz does not render --ring-size"; exit 1; }

step "spool locks from the scratch root"
cat >"$W/two.c" <<'C'
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;
static void *run(void *a)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&m);
		n++;
		pthread_mutex_unlock(&m);
	}
	return a;
}
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("n=%ld\n", n);
	return 0;
}
C
gcc -O1 -g -o "$W/two" "$W/two.c" -lpthread
rc=0
(cd "$W" && "$R/usr/bin/spool" locks -o "$W/t" -- "$W/two" >"$W/out" 2>"$W/err") || rc=$?
[ "$rc" = 0 ] || { cat "$W/err"; echo "spool locks exited $rc"; exit 1; }
grep -q "n=20000" "$W/out" || { echo "the program's output is not n=20000"; exit 1; }
grep -Eq "20,?000" "$W/err" || { cat "$W/err"; echo "the lock report does not count 20000 acquisitions"; exit 1; }

step "dpkg --purge leaves nothing of it"
"${DPKG[@]}" --purge spool >"$W/dpkg.log" 2>&1 ||
	{ cat "$W/dpkg.log"; echo "dpkg could not remove the package"; exit 1; }
# (usr itself may be gone: find fails then, and nothing is left)
left=$(find "$R/usr" -type f 2>/dev/null | head || true)
[ -z "$left" ] || { echo "$left"; echo "files left after dpkg --purge"; exit 1; }
step "ok: spool $VERSION from $(basename "$deb") installs, runs and is removed in a scratch root"
