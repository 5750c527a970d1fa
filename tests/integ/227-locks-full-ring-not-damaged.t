#!/bin/bash
# SPDX-License-Identifier: MIT
# 227-locks-full-ring-not-damaged.t - 172 for the lock rings of spool
# locks, which the same collector check reads: two threads of
# tests/progs/lockcount fill 16 KiB rings while spool is stopped (SIGSTOP)
# twice; their events are dropped and must be counted as lost, the same
# number by the run and by spool info, never called damage ("the program
# damaged the shared memory ... its lost counter went back or jumped":
# 3 runs in 8 before the collector read last_seq on both sides of lost).
. "$(dirname "$0")/lib.sh"

plan 6

"$SPOOL" locks --ring-size 16k -o t.trace -- "$PROGS/lockcount" 2 6000000 >prog.out 2>run.err &
SP=$!
sleep 0.1
kill -STOP "$SP"
sleep 0.5
kill -CONT "$SP"
sleep 0.2
kill -STOP "$SP"
sleep 0.3
kill -CONT "$SP"
wait "$SP"
RC=$?
ERR=$(cat run.err)
check_sanitizer run.err "spool locks (collector stopped)"
is_rc 4 "the collector stopped twice: the run exits 4 (events lost)"
ok "  the program ran to its end" grep -q '^total=12000000$' prog.out
ok "  no ring called damaged" test "$(grep -c damaged <<<"$ERR")" = 0 || diag "$ERR"
run_lost=$(summary_lost)
num_cmp "${run_lost:-x}" -gt 0 "  the run counts the events it lost"
spool_run info t.trace
is_rc 4 "spool info: exit 4 (incomplete)"
info_lost=$(sed -nE 's/^lost: ([0-9]+) events.*/\1/p' run.out | tail -n 1)
is "$info_lost" "$run_lost" "  spool info counts the same loss as the run"

done_testing
