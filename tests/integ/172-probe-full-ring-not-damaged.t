#!/bin/bash
# SPDX-License-Identifier: MIT
# 172-probe-full-ring-not-damaged.t - a probed thread whose ring is full
# waits for the collector at most 100 ms, then drops events, counted as
# lost. The probe handlers stored the ring's last_seq after the reserve, so
# a dropped event was counted in lost before last_seq numbered it, and the
# collector took the lost counter's jump for damage by the program: "the
# program damaged the shared memory of thread N ... its lost counter went
# back or jumped", the rest of the ring unread (tests/integ/46, 1 attach in
# 10 under load). Here spool's collector is stopped (SIGSTOP) for half a
# second while tests/progs/probe_harm (calling harm_leaf until told to
# stop) runs under jump probes with a 16 KiB ring: events are lost, and must
# be reported as lost, the same number by the run and by spool info, never
# as damage. Storing last_seq first was not the whole cause (still 1 run in
# 2): the collector read lost, then last_seq, and the thread numbered and
# dropped events between the two loads (27 seen), so the next look, with
# the thread then dropping everything, found lost grown more than last_seq.
# The collector now reads last_seq on both sides of lost.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_harm"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 5

# probe_harm N attach FILE: calls harm_leaf in rounds until FILE exists
"$SPOOL" probe --ring-size 16k -o t.trace -e 'func:harm_leaf' -- "$PROG" 1000 attach stop.now \
	>prog.out 2>run.err &
SP=$!
wait_ready prog.out
sleep 0.2
kill -STOP "$SP"
sleep 0.5
kill -CONT "$SP"
sleep 0.3
touch stop.now
wait "$SP"
RC=$?
ERR=$(cat run.err)
check_sanitizer run.err "spool probe (collector stopped)"
is_rc 4 "the collector stopped for 0.5 s: the run exits 4 (events lost)"
ok "  a full ring is not called damaged" test "$(grep -c damaged <<<"$ERR")" = 0 || diag "$ERR"
run_lost=$(sed -nE 's/.*: ([0-9]+) events lost.*/\1/p' run.err | tail -n 1)
num_cmp "${run_lost:-x}" -gt 0 "  the run counts the events it lost"
spool_run info t.trace
is_rc 4 "spool info: exit 4 (incomplete)"
info_lost=$(sed -nE 's/^lost: ([0-9]+) events.*/\1/p' run.out | tail -n 1)
is "$info_lost" "$run_lost" "  spool info counts the same loss as the run"

done_testing
