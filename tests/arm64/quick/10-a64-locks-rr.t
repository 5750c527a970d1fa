#!/bin/bash
# SPDX-License-Identifier: MIT
# 10-a64-locks-rr.t - the quick aarch64 check CI runs (make check-arm64-quick):
# spool's aarch64 build under qemu-user profiles the locks of a threaded
# program with the right counts, records a racy program in serial mode and
# a lock-order-dependent one in sync mode and replays both with the
# recorded output and status, and the host's x86-64 spool reads the traces
# written on "the board". The ring's publication order is stressed on both
# architectures (tests/arm64/ring_stress.c).
. "$(dirname "$0")/../lib.sh"

plan 20

# --- the ring under the weak memory model, and natively ---
RING_A64="$SPOOL_A64/tests/ring_stress"
RING_HOST="$(dirname "$HOST_SPOOL")/tests/ring_stress"
if [ -x "$RING_A64" ]; then
	out="$(timeout 300 "$RING_A64" 3 100000 2>&1)"
	is "$?" 0 "aarch64 ring stress: every record intact and in order"
	like "$out" '300000 records, 0 bad, 0 lost' "  3 producers x 100000 records came back"
else
	skip 2 "$RING_A64 is not built (make ARCH=aarch64 ring-stress)"
fi
if [ -x "$RING_HOST" ]; then
	out="$(timeout 300 "$RING_HOST" 3 100000 2>&1)"
	is "$?" 0 "x86-64 ring stress: the same check natively"
else
	skip 1 "$RING_HOST is not built (make ring-stress)"
fi

# --- spool locks: exact counts ---
spool_run locks -q -o locks.trace -- "$PROGS/lockcount" 4 2000
is_rc 0 "spool locks lockcount 4 2000 on aarch64 exits 0"
is "$OUT" "total=8000" "  the program's own output"
SUMMARY_FILE=run.err
is "$(summary_lost)" 0 "  no event lost"
# The host reads the board's trace.
SPOOL="$HOST_SPOOL" report_json locks.trace
is "$RC" 0 "the x86-64 spool reports the aarch64 trace (report --locks --json)"
is "$(lock_stat report.json shared_lock "$F_ACQ")" 8000 "  shared_lock acquired THREADS*ITERS times"
is "$(lock_stat report.json '*' "$F_ACQ")" 16000 "  all mutexes: shared plus 4 per-thread x 2000"
host_run info locks.trace
is_rc 0 "the x86-64 spool info reads the aarch64 trace"
like "$OUT" 'lock_events=[1-9]' "  and counts its lock events"

# --- serial mode: a racy counter, chaos finds the lost update ---
spool_run record --chaos --until-fail 100 -o race.trace -- "$PROGS/rr_race_counter-finst" 2 1000
is_rc 1 "serial record --chaos --until-fail keeps the failing run"
cp run.out race.rec.out
like "$(cat race.rec.out)" '^total [0-9]+ of 2000$' "  the counter lost updates"
same=0
for i in 1 2 3; do
	# (the last one keeps its schedule, compared below)
	if [ "$i" = 3 ]; then
		spool_run replay --trace-schedule -q -o "race.rep$i.trace" race.trace
	else
		spool_run replay -q -o "race.rep$i.trace" race.trace
	fi
	[ "$RC" = 1 ] && cmp -s run.out race.rec.out && same=$((same + 1))
done
is "$same" 3 "3 serial replays print the failing total and exit 1"
"$SPOOL" replay --dump-schedule race.trace 2>/dev/null | grep '^switch' >race.rec.sw
"$SPOOL" replay --dump-schedule race.rep3.trace 2>/dev/null | grep '^switch' >race.rep.sw
if [ -s race.rec.sw ] && cmp -s race.rec.sw race.rep.sw; then
	pass "  the replay switches threads where the recording did"
else
	fail "  the replay switches threads where the recording did"
fi

# --- sync mode: the order of lock acquisitions decides the output ---
spool_run record --mode sync --until-fail 50 -o order.trace -- "$PROGS/rr_order" 3 2000
is_rc 1 "sync record --until-fail keeps a run whose last entry is not thread 0's"
cp run.out order.rec.out
like "$(cat order.rec.out)" '^log [0-9a-f]+, last entry by thread [12]$' "  its log hash and last writer"
same=0
for i in 1 2 3; do
	spool_run replay -q -o "order.rep$i.trace" order.trace
	[ "$RC" = 1 ] && cmp -s run.out order.rec.out && same=$((same + 1))
done
is "$same" 3 "3 sync replays print the same log hash and exit 1"

# --- the host reads the recordings ---
host_run info race.trace
is_rc 0 "the x86-64 spool info reads the aarch64 serial recording"
host_run info order.trace
is_rc 0 "  and the sync one"

done_testing
