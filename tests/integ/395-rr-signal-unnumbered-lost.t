#!/bin/bash
# SPDX-License-Identifier: MIT
# 395-rr-signal-unnumbered-lost.t - a signal whose handler runs on a thread
# spool has not numbered is counted as lost, never left out of the
# recording silently (doc/record.md, "Signals"). A thread created with a
# mask of its own (pthread_attr_setsigmask_np) gets it in glibc's start
# code, before spool numbers it, so spool cannot hold its signals there
# (tests/integ/392 is the held case). tests/progs/rr_signewthread
# attrmask pins the creator to one CPU and signals each new thread at once:
# mostly the signal lands before the number. Then spool record must say the
# recording is incomplete, spool info that spool replay refuses it, and
# spool replay refuse it; a recording where every signal came after the
# number must replay with the same lines. The old agent recorded it as
# complete and its replays diverged ("the replay makes a call the
# recording does not have", sync and serial mode).
. "$(dirname "$0")/lib.sh"

plan 8

P="$PROGS/rr_signewthread"
WHY="a signal sent to a thread spool had not numbered yet ran its handler unrecorded"
for m in sync serial; do
	spool_run record -q --mode "$m" -o "$m.trace" -- "$P" 16 attrmask
	cp run.out "$m.rec.out"
	like "$RC/$(tail -n 1 <<<"$OUT")" "^0/threads 16 handled [0-9]+\$" \
		"$m: 16 threads with their own mask, each signalled at once" || show_run
	if grep -q "incomplete" run.err; then
		like "$ERR" "the recording is incomplete \\($WHY" \
			"  spool record says the handler ran unrecorded" || show_run
		spool_run info "$m.trace"
		like "$OUT" "spool replay stops at once with: the recording is incomplete \\($WHY" \
			"  spool info says spool replay refuses it" || show_run
		spool_run replay -q "$m.trace"
		like "$RC/$ERR" "^1/.*the recording is incomplete \\($WHY.*cannot replay it" \
			"  spool replay refuses it" || show_run
	else
		diag "$m: every signal came after the thread's number (nothing lost)"
		pass "  (nothing lost: no loss to report)"
		pass "  (nothing lost: spool info has no refusal to show)"
		replays_same 1 0 "$m.rec.out" -q "$m.trace"
		is "$SAME" 1 "  its replay prints the same and exits 0"
	fi
done
done_testing
