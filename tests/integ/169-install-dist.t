#!/bin/bash
# SPDX-License-Identifier: MIT
# 169-install-dist.t - the quick part of packaging (the slow part, building
# from the tarball and the Debian package, is `make check-dist`):
# `make install DESTDIR=ROOT PREFIX=/usr` puts a man page per command and
# the bash completion where man and bash-completion look, and the spool
# installed there runs `spool locks` with its own agent; `make dist` makes
# spool-VERSION.tar.gz (VERSION as spool --version says) holding the files
# git tracks under spool-VERSION/.
. "$(dirname "$0")/lib.sh"

if [ "$SPOOL_ASAN" = 1 ]; then
	echo "1..0 # SKIP packaging is checked in the normal pass (make install builds the normal tree)"
	exit 0
fi
O=$SPOOL_BUILD
cmds=$("$SPOOL" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | grep -vx help)
plan 13

R=$T_DIR/root
make -s -C "$REPO" O="$O" install DESTDIR="$R" PREFIX=/usr >make.out 2>&1
RC=$?
is_rc 0 "make install DESTDIR=ROOT PREFIX=/usr succeeds"
[ "$RC" = 0 ] || diag "$(tail -20 make.out)"
missing=
for c in $cmds; do
	[ -s "$R/usr/share/man/man1/spool-$c.1" ] || missing+=" spool-$c.1"
done
[ -s "$R/usr/share/man/man1/spool.1" ] || missing+=" spool.1"
is "$missing" "" "  it installs spool.1 and a page per command in /usr/share/man/man1"
like "$(LC_ALL=C MANWIDTH=100 man -l "$R/usr/share/man/man1/spool-record.1" 2>&1)" "--until-fail" \
	"  man -l of the installed spool-record.1 shows its options"
ok "  it installs the completion in /usr/share/bash-completion/completions/spool" \
	bash -c '. "$1" && complete -p spool | grep -q _spool' _ "$R/usr/share/bash-completion/completions/spool"

"$R/usr/bin/spool" locks -o "$T_DIR/t" -- "$PROGS/lockcount" 2 1000 >run.out 2>run.err
RC=$?
is_rc 0 "the installed spool runs spool locks"
like "$(cat run.out)" "total=2000" "  the program ran"
like "$(cat run.err)" "shared_lock" "  and its lock report names the lock (the installed agent was used)"
like "$("$R/usr/bin/spool" --version)" "^spool " "the installed spool --version"

version=$("$SPOOL" --version | sed -n 's/^spool //p')
if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	make -s -C "$REPO" O="$O" dist DIST="$T_DIR/spool-$version.tar.gz" >make.out 2>&1
	RC=$?
	is_rc 0 "make dist succeeds"
	ok "  spool-$version.tar.gz is there" test -s "spool-$version.tar.gz"
	tar -tzf "spool-$version.tar.gz" >list 2>/dev/null
	is "$(grep -cv "^spool-$version/" list)" "0" "  every file is under spool-$version/"
	tracked=$(git -C "$REPO" ls-files | while IFS= read -r f; do [ -e "$REPO/$f" ] && echo "$f"; done | sort)
	is "$(sed "s|^spool-$version/||" list | sort)" "$tracked" "  it holds exactly the files git tracks"
	ok "  with the Makefile and pkg/" grep -qx "spool-$version/pkg/pkg.mk" list
else
	skip 5 "$REPO is not a git work tree"
fi
done_testing
