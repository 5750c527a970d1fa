#!/bin/bash
# SPDX-License-Identifier: MIT
# 129-rr-cancel.t - pthread_cancel under record/replay, serial mode
# (400-rr-cancel-sync.t: the same cases in sync mode) (doc/record.md,
# "Threads"): tests/progs/rr_cancel.c cancels a thread, three times, while
# it waits in pthread_cond_wait (its cleanup handler finds the mutex taken
# back), pthread_cond_timedwait, pthread_cond_wait after the cancel type was
# set to asynchronous and back to deferred, a read of an empty pipe, poll, ppoll with a
# signal mask, pause, sigwait, sleep,
# clock_nanosleep, pthread_join of a thread that never ends, sem_wait, a
# loop of pthread_testcancel, with cancellation disabled in a condition
# wait and acted on after it is enabled again, and a thread that cancels
# itself; a helper thread changes a shared counter under a mutex meanwhile,
# and each round prints what the cleanup handlers saw (so the output
# depends on the interleaving). In both modes the recording ends with the
# program's own output (a serial recording of a cancelled condition wait
# used to never end), and three replays print the recorded output byte for
# byte and exit 0 (they used to be refused: "lost switches", or diverge
# with a hint that blamed a data race). In sync mode a cancellation acted on
# at a point spool does not record (fsync), or with the asynchronous cancel
# type, is said at record time; serial mode replays both like the others
# (it emulates the asynchronous type: a pending cancellation is acted on at
# the thread's next switch point; glibc's would unwind it inside spool's
# wait for the run token, and the recording never ended).
. "$(dirname "$0")/lib.sh"

HOWS="cond timedcond asyncoff read poll ppoll pause sigwait sleep nanosleep join sem testcancel disabled self"
UNSEEN="a thread was cancelled \(pthread_cancel\) at a cancellation point spool does not record"
ROUNDS=3
plan 34
# a recording that never ends fails here, not after the suite's 300 s
T_TIMEOUT=120

rr_cancel_hows serial

for how in fsync async; do
	spool_run record -q --mode serial -- "$PROGS/rr_cancel" "$how" "$ROUNDS"
	cp run.out rec.out
	if [ "$RC" = 0 ] && [ "$(grep -c '^round [0-9]*: cancelled, cleanups 1' rec.out)" = "$ROUNDS" ] &&
		! grep -q "$UNSEEN" run.err; then
		pass "serial $how: recorded, every victim cancelled, nothing to say"
	else
		fail "serial $how: recorded, every victim cancelled, nothing to say"
		show_run
	fi
	replays_same 3 0 rec.out -q spool.trace
	is "$SAME" 3 "serial $how: 3 replays print the recorded output and exit 0"
done
done_testing
