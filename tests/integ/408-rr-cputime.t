#!/bin/bash
# SPDX-License-Identifier: MIT
# 408-rr-cputime.t - the CPU time the kernel counts is an input of
# record/replay (issue 13, doc/record.md "What is recorded"): getrusage,
# times and clock() (src/agent/agent_rr_cputime.c). Before, none was
# recorded (clock() is a clock_gettime made inside libc, which the agent
# did not see), so libgcrypt's fast entropy poll, which mixes getrusage and
# clock() into its pool, made gpg print other random bytes in each replay
# (tests/real/138). rr_cputime burns CPU until clock() moved by 10 ms and
# prints getrusage (RUSAGE_SELF, RUSAGE_THREAD, through syscall()), times
# (and times(NULL)), clock() and both CPU-time clocks, in the main thread
# and in a second one: values that differ in every run. Each replay, serial
# and sync, prints the recorded lines and exits 0; the log holds them as
# calls 89 (getrusage) and 90 (times); spool info says so.
. "$(dirname "$0")/lib.sh"

plan 9

P="$PROGS/rr_cputime"
"$P" >n1.out 2>&1
"$P" >n2.out 2>&1
ok "without spool: the values differ between two runs" bash -c "! cmp -s n1.out n2.out"

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P"
	cp run.out "$mode.rec"
	is_rc 0 "$mode: record of rr_cputime exits 0"
	"$SPOOL" replay --dump-schedule "$mode.trace" >dump.out 2>/dev/null
	ru=$(grep -c ' call 89 fd [01] result 0 len 144$' dump.out)
	tm=$(grep -Ec ' call 90 fd -1 result [0-9]+ len (32|0)$' dump.out)
	# (6 getrusage a report, 3 reports; 2 times a report, one of NULL)
	ok "$mode: the log has 9 getrusage and 6 times inputs (got $ru, $tm)" \
		bash -c "[ '$ru' = 9 ] && [ '$tm' = 6 ]"
	spool_run info "$mode.trace"
	like "$OUT" "cpu time: recorded \\(getrusage, times, clock\\)" "  spool info says the CPU time is recorded"
	replays_same 3 0 "$mode.rec" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recorded values and exit 0"
done
done_testing
