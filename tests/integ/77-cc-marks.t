#!/bin/bash
# SPDX-License-Identifier: MIT
# 77-cc-marks.t - the markers of spool/trace.h under spool cc (doc/cc.md):
# tests/cc/marks.c built with plain clang and with spool cc at -O0, -O2 and
# -Os, with EV_DEBUG switched off (-DSPOOL_TRACE_OFF_EV_DEBUG) in both, decodes
# to the same events; the switched-off event is in neither trace and its
# argument never ran; idempotent repeats share one table entry and come back
# three times; a move limit splits the merged call where it says; values
# taken from the previous record decode. Without the switch the event is
# traced.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

cc_require_tools

plan 38

N=200
OFF=-DSPOOL_TRACE_OFF_EV_DEBUG

for O in O0 O2 Os; do
	"$CLANG" -"$O" $OFF -I"$SRC/include" "$SRC/tests/cc/marks.c" -o "plain-$O" 2>build.err
	is "$?" 0 "-$O: marks builds with plain clang" || diag "$(cat build.err)"
	spool_run cc -"$O" $OFF -Wall -Wextra -Werror "$SRC/tests/cc/marks.c" -o "cc-$O"
	is_rc 0 "-$O: marks builds with spool cc"
	for b in plain cc; do
		rm -rf "t-$b-$O"
		spool_run locks -q -o "t-$b-$O" -- "./$b-$O" "$N"
		is_rc 0 "-$O: the $b build runs under spool"
		is "$OUT" "evaluated 0" "-$O: the $b build never evaluated the switched-off argument"
		spool_run decode --stats "t-$b-$O"
		is_rc 0 "-$O: spool decode reads the $b build's trace"
		cp run.out "dec-$b-$O"
		cp run.err "stats-$b-$O"
	done
	cc_same_events "dec-plain-$O" "dec-cc-$O" "-$O: decoded spool cc trace = plain trace"
	ok "-$O: decoded times strictly increase" cc_increasing "dec-cc-$O"
	diag "-$O: plain $(cc_stat "stats-plain-$O" records) records" \
		"$(cc_stat "stats-plain-$O" bytes) bytes, spool cc $(cc_stat "stats-cc-$O" records)" \
		"records $(cc_stat "stats-cc-$O" bytes) bytes"
done

ticks=$(awk '$3 == 40' dec-cc-O2 | grep -c '')
is "$ticks" $((3 * N)) "each idempotent tick decodes three times ($ticks)"
dbg=$(awk '$3 == 43' dec-plain-O2 dec-cc-O2 | grep -c '')
is "$dbg" 0 "the switched-off event is in neither trace"

# The table: the repeats collapsed, the limit honoured, the reuse recorded.
"$CLANG" -O2 -DSPOOL_CC=1 $OFF -I"$SRC/include" -emit-llvm -c "$SRC/tests/cc/marks.c" -o m.bc
"$CCOPT" --explain --table m.tab m.bc mo.bc 2>explain.txt
like "$(cat m.tab)" "e 40 1 a0 r3" "three idempotent ticks are one table line with a repeat of 3"
# EV_NEAR (42) moves at most 1 trace call: at most one event after it in its entry.
after=$(awk '/^m / { if (seen) print cnt; seen = 0 } /^e 42 / { seen = 1; cnt = -1 }
	     /^e / { if (seen) cnt++ } END { if (seen) print cnt }' m.tab)
is "$after" 1 "the move-limited call has at most one call after it in its merged call"
like "$(cat m.tab)" $'\nm [0-9]+ [0-9]+ [0-9]+ m[0-9]+\n' "a merged call takes values from the previous record"
like "$(cat explain.txt)" "1 calls switched off" "--explain counts the call switched off"

# Without the switch the event is traced, by both builds alike.
"$CLANG" -O2 -I"$SRC/include" "$SRC/tests/cc/marks.c" -o plain-on
spool_run cc -O2 "$SRC/tests/cc/marks.c" -o cc-on
for b in plain cc; do
	rm -rf "t-$b-on"
	spool_run locks -q -o "t-$b-on" -- "./$b-on" "$N"
	spool_run decode "t-$b-on"
	cp run.out "dec-$b-on"
done
dbg=$(awk '$3 == 43' dec-cc-on | grep -c '')
is "$dbg" "$N" "without the switch the event is traced ($dbg)"
cc_same_events dec-plain-on dec-cc-on "and both builds decode to the same events"

done_testing
