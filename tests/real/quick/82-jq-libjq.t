#!/bin/bash
# SPDX-License-Identifier: MIT
# 82-jq-libjq.t - Debian's jq, whose work is in a shared library of its own
# (libjq.so.1; the executable is stripped and exports nothing): every
# function of the library probed (`func:libjq*:*`), twice, with jq's own
# output each time and the same call count for every function (jq is
# deterministic: a count that differed would be a probe lost or counted
# twice); then recorded and replayed in serial and in sync mode.
. "$(dirname "$0")/../lib.sh"
need_progs jq
plan 9

PROG='[range(0;3000)] | map(select(. % 3 == 0) | . * 2) | add'
jq -n "$PROG" >native.out
is "$?:$(cat native.out)" "0:$((2 * 3 * (999 * 1000 / 2)))" "jq alone computes the sum"

for i in 1 2; do
	spool_run probe -q -o p$i.trace -e 'func:libjq*:*' -- jq -n "$PROG"
	ok "func:libjq*:* run $i: exit 0 with jq's own output" \
		bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
	"$SPOOL" report --functions --json p$i.trace >p$i.json 2>/dev/null
done
n1=$(json p1.json "len(d['functions'])")
calls=$(json p1.json "sum(f['calls'] for f in d['functions'])")
diff_n=$(python3 - p1.json p2.json <<'PY'
import json, sys
a, b = ({f["name"]: f["calls"] for f in json.load(open(p))["functions"]} for p in sys.argv[1:])
print(sum(1 for k in set(a) | set(b) if a.get(k) != b.get(k)))
PY
)
diag "libjq: ${n1:-?} functions called, ${calls:-?} calls in all"
ok "libjq's functions are reached (${n1:-0} of them)" test "${n1:-0}" -gt 10
is "${diff_n:-x}" 0 "every function's call count is the same in both runs"

for mode in serial sync; do
	spool_run record -q --mode $mode -o r.$mode -- jq -n "$PROG"
	ok "$mode: recorded, jq's own output" \
		bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
	replays_same 2 0 native.out -q -o rep.trace r.$mode
	is "$SAME" 2 "$mode: 2 replays of 2 with the output"
done
done_testing
