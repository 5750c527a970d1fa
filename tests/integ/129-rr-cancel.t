#!/bin/bash
# SPDX-License-Identifier: MIT
# 129-rr-cancel.t - pthread_cancel under record/replay (doc/record.md,
# "Threads"): tests/progs/rr_cancel.c cancels a thread, three times, while
# it waits in pthread_cond_wait (its cleanup handler finds the mutex taken
# back), pthread_cond_timedwait, a read of an empty pipe, poll, ppoll with a
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
# with a hint that blamed a data race).
. "$(dirname "$0")/lib.sh"

HOWS="cond timedcond read poll ppoll pause sigwait sleep nanosleep join sem testcancel disabled self"
ROUNDS=3
plan 56
# a recording that never ends fails here, not after the suite's 300 s
T_TIMEOUT=120

for mode in serial sync; do
	for how in $HOWS; do
		spool_run record -q --mode "$mode" -- "$PROGS/rr_cancel" "$how" "$ROUNDS"
		cp run.out rec.out
		want="cancelled, cleanups 1, mutex held in cleanup -1"
		case "$how" in
		cond | timedcond) want="cancelled, cleanups 1, mutex held in cleanup 1" ;;
		esac
		n=$(grep -c "^round [0-9]*: $want, shared counted$" rec.out)
		if [ "$RC" = 0 ] && [ "$n" = "$ROUNDS" ] && grep -q '^done$' rec.out; then
			pass "$mode $how: the recording ends, every round's victim was cancelled"
		else
			fail "$mode $how: the recording ends, every round's victim was cancelled"
			show_run
			fail "$mode $how: 3 replays print the recorded output and exit 0"
			continue
		fi
		replays_same 3 0 rec.out -q spool.trace
		is "$SAME" 3 "$mode $how: 3 replays print the recorded output and exit 0"
	done
done
done_testing
