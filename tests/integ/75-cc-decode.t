#!/bin/bash
# SPDX-License-Identifier: MIT
# 75-cc-decode.t - spool cc and spool decode (doc/cc.md): tests/cc/bank.c
# built with plain clang and with spool cc, at -O0, -O2 and -Os, each run under
# spool; the decoded trace of the spool cc build equals the plain build's
# event for event and argument for argument, with strictly increasing times,
# and it took fewer trace records and bytes. Then the faults: a table from
# another build is refused, a corrupt table is refused, a bad event id is a
# compile error naming the problem, and a file that is not C compiles as
# clang compiles it.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

. "$SRC/tests/cc/cc-lib.sh"
cc_require_tools

plan 61

ROUNDS=300

# events FILE: the decoded events without their times (TID ID ARGS...),
# the thread id replaced by its order of appearance so runs compare.
events() {
	awk '{ if (!($2 in t)) t[$2] = n++; $1 = ""; $2 = t[$2]; print }' "$1"
}


for O in O0 O2 Os; do
	"$CLANG" -"$O" -Wall -Wextra -Werror -I"$SRC/include" "$SRC/tests/cc/bank.c" \
		-o "bank-plain-$O" 2>build.err
	is "$?" 0 "-$O: bank builds with plain clang" || diag "$(cat build.err)"
	spool_run cc -"$O" -Wall -Wextra -Werror "$SRC/tests/cc/bank.c" -o "bank-cc-$O"
	is_rc 0 "-$O: bank builds with spool cc"

	for b in plain cc; do
		rm -rf "t-$b-$O"
		spool_run locks -q -o "t-$b-$O" -- "./bank-$b-$O" "$ROUNDS"
		is_rc 0 "-$O: the $b build runs under spool"
		spool_run decode --stats "t-$b-$O"
		is_rc 0 "-$O: spool decode reads the $b build's trace"
		cp run.out "dec-$b-$O"
		cp run.err "stats-$b-$O"
	done
	events "dec-plain-$O" >ev-plain
	events "dec-cc-$O" >ev-cc
	n=$(grep -c '' ev-plain)
	num_cmp "$n" -gt 100 "-$O: the plain run traced its events ($n)"
	if cmp -s ev-plain ev-cc; then
		pass "-$O: decoded spool cc trace = plain trace, event for event"
	else
		fail "-$O: decoded spool cc trace = plain trace, event for event"
		diag "$(diff ev-plain ev-cc | head -n 20)"
	fi
	ok "-$O: decoded times strictly increase" cc_increasing "dec-cc-$O"
	pr=$(cc_stat "stats-plain-$O" records)
	cr=$(cc_stat "stats-cc-$O" records)
	pb=$(cc_stat "stats-plain-$O" bytes)
	cb=$(cc_stat "stats-cc-$O" bytes)
	diag "-$O: plain $pr records $pb bytes, spool cc $cr records $cb bytes"
	num_cmp "$cr" -lt "$pr" "-$O: spool cc build made fewer trace calls ($cr < $pr)"
	num_cmp "$cb" -lt "$pb" "-$O: and wrote fewer bytes ($cb < $pb)"
done

# --json: the same events, with the names SPOOL_TRACE_EVENT gave them.
spool_run decode --json t-cc-O2
is_rc 0 "decode --json reads the spool cc trace"
cp run.out dec-json
python3 - dec-json dec-plain-O2 >json.check 2>&1 <<'PYEOF2'
import json, sys
ev = json.load(open(sys.argv[1]))
plain = [l.split()[2:] for l in open(sys.argv[2])]
got = [[str(e["id"])] + [str(a) for a in e["args"]] for e in ev]
assert got == plain, "events differ from the plain build's text decode"
assert all(e["name"] for e in ev), "an event without its name"
d = [e for e in ev if e["id"] == 3][0]
assert d["name"] == "debit" and d["arg_names"] == ["account", "balance"], d
print("ok")
PYEOF2
is "$(tail -n 1 json.check)" ok "  it is JSON, event for event the plain trace, with names" ||
	diag "$(cat json.check)"

# --trace-out: the decoded events as a plain spool trace that every reader takes.
rm -rf t-out
spool_run decode --trace-out t-out t-cc-O2
is_rc 0 "decode --trace-out writes the decoded trace"
spool_run decode t-out
cp run.out dec-out
events dec-out >ev-out
events dec-plain-O2 >ev-plain
if cmp -s ev-plain ev-out; then
	pass "  it holds the plain build's events, event for event"
else
	fail "  it holds the plain build's events, event for event"
	diag "$(diff ev-plain ev-out | head -n 10)"
fi
ok "  its times strictly increase" cc_increasing dec-out
spool_run info t-out
gaps=$(awk '$NF ~ /^stream_/ { g += $(NF - 1) } END { print g + 0 }' run.out)
is "$gaps" 0 "  spool info reads it and finds no sequence gaps"
if command -v babeltrace2 >/dev/null; then
	n=$(babeltrace2 t-out 2>/dev/null | grep -c 'spool:user')
	is "$n" "$(grep -c '' dec-plain-O2)" "  babeltrace2 reads every decoded event"
else
	skip 1 "babeltrace2 is not installed"
fi

# Cycle estimates: the optimizer records how many cycles before its merged
# call each original call would have run (table d<c>); decode moves those
# events back by that much, decode --no-cycles gives them the merged call's
# time and orders them by the .N suffix only. Same events, same order; every
# corrected time is at most the uncorrected one, some are earlier, and the
# corrected times still strictly increase (checked above for dec-cc-O2).
# (at -O2 bank's one untimed record, transfer_end behind its barrier, is estimated
# 1 cycle after the record before it, which the nanoseconds do not show;
# tests/integ/91-cc-untimed.t checks untimed records.)
spool_run decode --no-cycles t-cc-O2
is_rc 0 "decode --no-cycles reads the spool cc trace"
cp run.out dec-nocyc
cmp_out=$(paste -d '|' dec-cc-O2 dec-nocyc | awk -F '|' '
	{ n = split($1, x, " "); if (split($2, y, " ") != n) { bad = "lengths differ at " NR; exit }
	  for (i = 2; i <= n; i++) if (x[i] != y[i]) { bad = "events differ at " NR; exit }
	  split(x[1], a, "."); split(y[1], b, ".");
	  if (a[1] + 0 > b[1] + 0) { bad = "later than uncorrected at " NR; exit }
	  if (a[1] + 0 < b[1] + 0) earlier++ }
	END { if (bad != "") print bad; else print "earlier " earlier + 0 }')
like "$cmp_out" "^earlier [1-9]" "  corrected times are never later than the .N scheme's, some earlier ($cmp_out)"
ok "  uncorrected times strictly increase too" cc_increasing dec-nocyc
# Each corrected time lies in its record's span: not after the record's own
# time (the uncorrected one), not before the record written before it.
span=$(paste -d '|' dec-cc-O2 dec-nocyc | awk -F '|' '
	{ split($1, x, " "); split($2, y, " "); split(x[1], a, "."); split(y[1], b, ".");
	  t = a[1] + 0; r = b[1] + 0
	  if (r != cur) { prev = cur; cur = r }
	  if (t > r) { bad = "after its record at " NR; exit }
	  if (NR > 1 && t < prev) { bad = "before the record before at " NR; exit }
	  if (t < r) moved++ }
	END { if (bad != "") print bad; else print "in span, " moved + 0 " moved back" }')
like "$span" "^in span, [1-9]" "  corrected times lie within their record's span ($span)"

# --max-codes: at most that many merged codes; the others stay trace calls,
# and the decoded stream is still the plain build's.
ncodes() {
	objcopy --dump-section .spool_cc_table="$1.tab" "$1" "$1.tmp" 2>/dev/null
	grep -c '^m ' "$1.tab"
}
spool_run cc -O2 --max-codes 1 "$SRC/tests/cc/bank.c" -o bank-max1
is_rc 0 "spool cc --max-codes 1 builds bank"
all=$(ncodes bank-cc-O2)
one=$(ncodes bank-max1)
ok "  its table has 1 merged code, the unlimited one $all" test "$one" -eq 1 -a "$all" -gt 1
rm -rf t-max1
spool_run locks -q -o t-max1 -- ./bank-max1 "$ROUNDS"
spool_run decode --stats t-max1
is_rc 0 "  its trace decodes"
cp run.out dec-max1
cp run.err stats-max1
events dec-max1 >ev-max1
if cmp -s ev-plain ev-max1; then
	pass "  decoded: the plain build's events, event for event"
else
	fail "  decoded: the plain build's events, event for event"
	diag "$(diff ev-plain ev-max1 | head -n 10)"
fi
r1=$(cc_stat stats-max1 records)
ra=$(cc_stat stats-cc-O2 records)
rp=$(cc_stat stats-plain-O2 records)
diag "records: plain $rp, --max-codes 1 $r1, unlimited $ra"
ok "  records: unlimited ($ra) <= --max-codes 1 ($r1) < plain ($rp)" \
	test "$ra" -le "$r1" -a "$r1" -lt "$rp"

# C's aliasing rules let -O0's reload of b->id after a store to a->balance
# merge with the earlier load; -fno-strict-aliasing takes that away, and
# both builds still decode to the plain build's events.
spool_run cc -O0 -fno-strict-aliasing "$SRC/tests/cc/bank.c" -o bank-nsa
is_rc 0 "spool cc -O0 -fno-strict-aliasing builds bank"
rm -rf t-nsa
spool_run locks -q -o t-nsa -- ./bank-nsa "$ROUNDS"
spool_run decode --stats t-nsa
cp run.out dec-nsa
cp run.err stats-nsa
events dec-nsa >ev-nsa
events dec-plain-O0 >ev-plain0
ok "  its decoded trace is the plain build's" cmp -s ev-plain0 ev-nsa
b0=$(cc_stat stats-cc-O0 bytes)
bn=$(cc_stat stats-nsa bytes)
ok "  it writes more bytes than the default build ($bn > $b0)" test "$bn" -gt "$b0"

# The table is in a section that is not loaded.
flags=$(readelf -W -S bank-cc-O2 | awk '$2 == ".spool_cc_table" { print $8 }')
unlike "${flags:-A}" "A" "the table section is not allocated"

# A table from another build: the same source with one more trace call.
sed 's/SPOOL_TRACE(EV_START, 0);/SPOOL_TRACE(EV_START, 0); SPOOL_TRACE(EV_START, 1);/' \
	"$SRC/tests/cc/bank.c" >bank2.c
spool_run cc -O2 -I"$SRC/tests/cc" bank2.c -o bank2
is_rc 0 "a second build of bank compiles"
spool_run decode --binary bank2 t-cc-O2
is "$RC" 1 "decode refuses the table of another build"
like "$ERR" "not in" "  and says the table does not match"

# A corrupt table: one digit of it changed in a copy of the binary.
cp bank-cc-O2 bank-bad
off=$(readelf -W -S bank-bad 2>/dev/null | awk '$2 == ".spool_cc_table" { print $5 }')
off=$((16#${off:-0}))
python3 - bank-bad "$off" <<'EOF'
import sys
p, off = sys.argv[1], int(sys.argv[2])
d = bytearray(open(p, "rb").read())
i = d.index(b"\ne ", off) + 3  # the first original event id
d[i] = ord("9") if d[i] != ord("9") else ord("8")
open(p, "wb").write(d)
EOF
spool_run decode --binary bank-bad t-cc-O2
is "$RC" 1 "decode refuses a corrupt table"
like "$ERR" "corrupt" "  and says it is corrupt"

# Misuse: an event id that is not a constant below 0x80000000.
printf '#include <spool/trace.h>\nint main(void) { SPOOL_TRACE(0x90000000u, 1); return 0; }\n' \
	>badid.c
spool_run cc -c badid.c -o badid.o
is "$RC" 1 "a bad event id fails to compile"
like "$ERR" "event id must be a constant" "  with a message naming the problem"

# Not C: an assembler file goes to clang as it is.
printf '.globl f\nf:\n\tret\n' >f.s
spool_run cc -c f.s -o f.o
is_rc 0 "spool cc compiles a .s file like clang"

done_testing
