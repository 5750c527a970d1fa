#!/bin/bash
# SPDX-License-Identifier: MIT
# 392-rr-signal-new-thread.t - a signal sent to a thread right after
# pthread_create is recorded (doc/record.md, "Signals"). glibc unblocks a
# new thread's signals before spool's start code numbers it; a signal
# queued by then ran its handler unrecorded, and the replay, which never
# ran it, diverged ("the replay makes a call the recording does not
# have"). Now the creator blocks the program's signals around the real
# pthread_create and the new thread unblocks them once numbered
# (src/agent/agent_rr_starthold.c). tests/progs/rr_signewthread: the old
# agent's replays diverged 6 of 6 (sync and serial mode). Each recording
# must be complete and replay with the same lines.
. "$(dirname "$0")/lib.sh"

plan 12

P="$PROGS/rr_signewthread"
for m in sync serial; do
	for r in 1 2; do
		spool_run record -q --mode "$m" -o "$m$r.trace" -- "$P" 16
		cp run.out "$m$r.rec.out"
		like "$RC/$(tail -n 1 <<<"$OUT")" "^0/threads 16 handled [0-9]+\$" \
			"$m, recording $r: 16 threads, each signalled at once" || show_run
		unlike "$ERR" "incomplete|lost" "  the recording is complete" || show_run
		replays_same 1 0 "$m$r.rec.out" -q "$m$r.trace"
		is "$SAME" 1 "  its replay prints the same and exits 0"
	done
done
done_testing
