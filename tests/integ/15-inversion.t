#!/bin/bash
# SPDX-License-Identifier: MIT
# 15-inversion.t - a lock-order inversion that did not deadlock in this run
# (tests/progs/inversion.c: lock_a then lock_b in one thread, later lock_b
# then lock_a in another) must be reported as a potential deadlock, with the
# call sites of both orders symbolized to the functions that made them.
. "$(dirname "$0")/lib.sh"

plan 12

spool_run locks -- "$PROGS/inversion"
is_rc 0 "inversion under spool exits 0 (it never deadlocks)"
like "$ERR" "[Dd]eadlock" "the text report has a potential deadlock"
like "$ERR" "lock_a_then_b" "  naming lock_a_then_b"
like "$ERR" "lock_b_then_a" "  and lock_b_then_a"

report_json spool.trace
is "$RC" 0 "spool report --locks --json exits 0"
# The cycle of two locks; names of its locks; sites of its edges.
cycle='[c for c in d["deadlocks"] if c["length"] == 2]'
names='{l["index"]: l["name"] for l in d["locks"]}'
is "$(json report.json "len($cycle)")" 1 "  exactly one cycle of two locks"
is "$(json report.json "sorted(($names)[i] for i in ($cycle)[0]['locks'])")" "lock_a
lock_b" "  between lock_a and lock_b"
sites=$(json report.json "[e[k] for e in ($cycle)[0]['edges'] for k in ('from_site', 'to_site')]")
like "$sites" "^lock_a_then_b" "  one order's sites are in lock_a_then_b"
like "$sites" "^lock_b_then_a" "  the other's in lock_b_then_a"
like "$sites" "inversion\\.c:[0-9]+" "  with file and line"
is "$(json report.json "len(set(e['tid'] for e in ($cycle)[0]['edges']))")" 2 \
	"  taken by two different threads"

# A program with a consistent order has no cycle.
spool_run locks -q -- "$PROGS/lockcount" 2 100
report_json spool.trace
is "$(json report.json 'len(d["deadlocks"])')" 0 "lockcount (one order only): no deadlock reported"

done_testing
