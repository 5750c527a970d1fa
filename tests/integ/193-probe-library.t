#!/bin/bash
# SPDX-License-Identifier: MIT
# 193-probe-library.t - user-defined probes in the probe library (spool
# probe --handler SO stores the probe, --list-library lists it, --handler
# NAME uses it in a later run).
#
# The counting handler (tests/probe/handler_count.c) is built as
# mycount.so. A first run with --handler ./mycount.so stores the probe
# "mycount" in the library ($XDG_CONFIG_HOME/spool/probes: the test's own)
# and says so; --list-library lists it with the handlers it exports; the
# original object is then removed, and a later run names the probe
# (--handler mycount): its handlers still see every call. Running with the
# same object again stores nothing; a changed object replaces the stored
# one; a shared object that exports no handler is not stored; a name that
# is neither a file nor a stored probe is an error.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_calls"
CC="${CC:-cc}"
if [ ! -x "$PROG" ] || ! command -v "$CC" >/dev/null; then
	echo "1..0 # SKIP $PROG is not built or no C compiler"
	exit 0
fi
plan 14

build_so() { # NAME SOURCE [CFLAGS]
	"$CC" -shared -fPIC -mgeneral-regs-only -O2 ${3:-} -I"$REPO/include" -o "$1" \
		"$REPO/tests/probe/$2"
}
ok "the counting handler builds as mycount.so" build_so mycount.so handler_count.c
native="$("$PROG" 200)"
total="$(awk '{ s += $2 } END { print s }' <<<"$native")"
LIB="$XDG_CONFIG_HOME/spool/probes"

spool_run probe --list-library
like "$OUT" "^  func +entry:" "--list-library: the standard probes"
like "$OUT" "user probes .*: none" "... and no user probe yet"

spool_run probe --handler ./mycount.so -e 'func:probe_*' -- "$PROG" 200
is "$RC:$OUT" "0:$native" "a run with --handler SO"
like "$ERR" "handler probe 'mycount' added to the library" "... stores the probe and says so"
ok "... as files of the library directory" test -f "$LIB/mycount.probe" -a -f "$LIB/mycount.so"

spool_run probe --list-library
like "$OUT" "^  mycount +handlers pre,post +$LIB/mycount.so" \
	"--list-library lists it, with the handlers it exports and its stored object"

rm mycount.so
spool_run probe --handler mycount -e 'func:probe_*' -- "$PROG" 200
is "$RC:$OUT" "0:$native" "a later run names the probe (--handler mycount), the object gone"
line="$(grep '^handler pre' run.err)"
is "$(awk '{ print $3, $5 }' <<<"$line")" "$total $total" \
	"... and its pre and post handlers ran at every call and return"

build_so mycount.so handler_count.c
spool_run probe --handler ./mycount.so -e 'func:probe_leaf_add' -- "$PROG" 5
unlike "$ERR" "library" "the same object again: nothing stored, nothing said"
build_so mycount.so handler_count.c -O0
spool_run probe --handler ./mycount.so -e 'func:probe_leaf_add' -- "$PROG" 5
like "$ERR" "handler probe 'mycount' replaced in the library" "a changed object replaces it"

cp "$PROG" notahandler.so
spool_run probe --handler ./notahandler.so -e 'func:probe_leaf_add' -- "$PROG" 5
ok "a shared object that exports no handler is not stored" test ! -e "$LIB/notahandler.probe"

spool_run probe --handler nosuch -e 'func:probe_leaf_add' -- "$PROG" 5
is "$RC" 2 "--handler NAME of no file and no stored probe: a usage error"
like "$ERR" "no probe of that name in the library" "... that says why"

done_testing
