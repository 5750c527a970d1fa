#!/bin/bash
# SPDX-License-Identifier: MIT
# 400-rr-cancel-sync.t - 129-rr-cancel.t's cases in sync mode (split off
# so that each file takes well under 30 s: most of its time is the
# program's sleeps). pthread_cancel under record/replay (doc/record.md,
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
plan 33
# a recording that never ends fails here, not after the suite's 300 s
T_TIMEOUT=120

rr_cancel_hows sync

for how in fsync async; do
	spool_run record -q --mode sync -- "$PROGS/rr_cancel" "$how" "$ROUNDS"
	like "$ERR" "$UNSEEN" "sync $how: record says the cancellation point is not recorded"
done
done_testing
