#!/bin/bash
# SPDX-License-Identifier: MIT
# 391-rr-sync-signal-blocked.t - a sync recording delivers a signal to a
# thread blocked in a contended mutex or a condition wait at once, inside
# the wait, as the kernel would (doc/record.md, "Signals order threads in
# sync mode"). It delivered it only at the thread's next recorded event,
# which the wait ends: a program whose other thread waits for the handler
# before it unlocks the mutex or sets the condition never got the answer.
# That is how Boehm's collector stops the world; guile 3.0 under `spool
# record --mode sync` aborted ("Signals delivery fails constantly at GC
# #2", exit 134). tests/progs/rr_sigwaitlock: the old agent prints "no
# answer in round 1" and exits 1 in both modes. Each recording replays
# with the same lines.
. "$(dirname "$0")/lib.sh"

plan 8

P="$PROGS/rr_sigwaitlock"
for m in mutex cond; do
	for r in 1 2; do
		spool_run record -q --mode sync -o "$m$r.trace" -- "$P" "$m" 3
		is "$RC/$OUT" "0/rounds 3 answered 3" \
			"$m, recording $r: the blocked thread's handler answered every round" || show_run
		spool_run replay "$m$r.trace"
		is "$RC/$OUT" "0/rounds 3 answered 3" "  its replay prints the same and exits 0" ||
			show_run
	done
done
done_testing
