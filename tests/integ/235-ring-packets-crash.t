#!/bin/bash
# SPDX-License-Identifier: MIT
# 235-ring-packets-crash.t - SPOOL_RING_PACKETS=1 and a program that dies
# with packets still open in its rings (a crash, a SIGKILL of a process
# whose threads are all taking locks): the collector closes each open
# packet at the ring's head once the process is gone (the agent keeps a
# packet's event count and last time up to date with every event), so the
# trace holds every event committed before the death, spool info and
# babeltrace2 read it whole, and the run summary, spool info and the
# report say the same count of events and of lost ones.
. "$(dirname "$0")/lib.sh"

plan 13

export SPOOL_RING_PACKETS=1

spool_run locks -q -o c.trace -- "$PROGS/crash" 5000
is "$RC" 139 "crash 5000 (SIGSEGV) under spool locks: the program's status"
is "$(trace_summary c.trace lock_events)" 10000 \
	"  the summary counts all 10,000 lock events (the open packet was closed at its head)"
report_json c.trace
is "$(lock_stat report.json crash_lock "$F_ACQ")" 5000 "  spool report: 5,000 acquisitions"
spool_run info c.trace
is_rc 0 "  spool info: complete, nothing lost"

# 3 threads locking in a loop, the process killed (SIGKILL) mid-run
timeout -k 10 120 "$SPOOL" locks -q -o k.trace -- "$PROGS/lockcount" 3 200000000 2 \
	>k.out 2>k.err </dev/null &
spid=$!
sleep 1.5
if pid=$(prog_of "$spid"); then
	kill -KILL "$pid"
fi
wait "$spid"
RC=$?
is "$RC" 137 "lockcount killed by SIGKILL under spool locks: the program's status"
ERR=$(cat k.err)
ev=$(trace_summary k.trace events)
lost=$(trace_summary k.trace lost_ring)
num_cmp "$(trace_summary k.trace lock_events)" -gt 1000 "  lock events of all threads in the trace"
spool_run info k.trace
like "$OUT" "events: $ev \(" "  spool info reads back every event the summary counts ($ev)"
like "$OUT" "lost: $lost events" "  and says the same loss ($lost)"
num_cmp "$(grep -cE '^[1-3] ' <<<"$OUT")" -eq 3 "  each of the 3 threads has its stream"
unlike "$OUT" "problem|truncated|damaged_rings=[1-9]" "  no stream is damaged or cut short"
report_json k.trace
num_cmp "$(lock_stat report.json shared_lock "$F_ACQ")" -gt 0 "  spool report reads it"
if command -v babeltrace2 >/dev/null; then
	bt_count k.trace >/dev/null
	is "$?" 0 "  babeltrace2 reads it"
	is "$(grep -vc ' spool:site: ' bt.out)" "$ev" "  and prints every event"
else
	skip 2 "babeltrace2 is not installed"
fi

done_testing
