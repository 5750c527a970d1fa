#!/bin/bash
# SPDX-License-Identifier: MIT
# 286-a64-rr-cputime.t - the CPU time the kernel counts is an input of
# record/replay on aarch64 too (src/agent/agent_rr_cputime.c, the same
# interposers: getrusage, times, clock() through the agent's clock_gettime;
# the raw getrusage and times system calls through syscall()). rr_cputime
# under qemu-user prints getrusage, times, clock() and the CPU-time clocks
# of two threads, values that differ in every run: each replay, serial and
# sync, prints the recorded lines and exits 0, the log holds 9 getrusage
# (call 89) and 6 times (call 90) inputs, and the host's x86-64 spool
# reads the board's recording (spool info: the CPU time recorded).
# tests/integ/408 is the same on x86-64.
. "$(dirname "$0")/lib.sh"

plan 9

P="$PROGS/rr_cputime"
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P"
	cp run.out "$mode.rec"
	is_rc 0 "$mode: record of rr_cputime on aarch64 exits 0"
	"$SPOOL" replay --dump-schedule "$mode.trace" >dump.out 2>/dev/null
	ru=$(grep -c ' call 89 fd [01] result 0 len 144$' dump.out)
	tm=$(grep -Ec ' call 90 fd -1 result [0-9]+ len (32|0)$' dump.out)
	ok "$mode: the log has 9 getrusage and 6 times inputs (got $ru, $tm)" \
		bash -c "[ '$ru' = 9 ] && [ '$tm' = 6 ]"
	host_run info "$mode.trace"
	like "$OUT" "cpu time: recorded \\(getrusage, times, clock\\)" "  the x86-64 spool info reads it: the CPU time is recorded"
	replays_same 2 0 "$mode.rec" -q "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 print the recorded values and exit 0"
done
# (the first run's values are not the second's: what the replays repeat)
"$P" >n1.out 2>&1
ok "without spool: the values differ from the recording's" bash -c "! cmp -s n1.out sync.rec"
done_testing
