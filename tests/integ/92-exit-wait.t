#!/bin/bash
# SPDX-License-Identifier: MIT
# 92-exit-wait.t - threads still blocked in a call when another thread ends
# the process (a condition wait, a read, a sleep, a mutex: xz -T2 ends its
# workers this way) have no record of that call. A sync replay lets them
# wait there for good, as they did, and ends when main exits; serial mode
# too. A replay in which every thread is left waiting that way (the program
# changed: main joins a waiter) is a divergence, reported, not a hang.
. "$(dirname "$0")/lib.sh"

plan 14

P="$PROGS/rr_exitwait"

for mode in sync serial; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P" 5000
	is_rc 0 "$mode: record exits with the program's status"
	cp run.out "$mode.rec.out"
	like "$OUT" '^total -?[0-9]+$' "$mode: the recorded run printed its total"
	replays_same 3 0 "$mode.rec.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 end like the recording, same output"
done

# The replay's own trace shows the waiters' calls stopped where they were.
spool_run replay -q -o rep.trace sync.trace
is_rc 0 "sync: replay with its own trace"
ok "the replay trace exists" test -f rep.trace/metadata

# A program that now joins the waiting thread: nothing will end the run.
spool_run replay -q --env RR_EXITWAIT_JOIN=1 sync.trace
is_rc 3 "sync: a replay where every thread waits past its recording diverges (exit 3)"
# The last thread to go past its recording reports: main's pthread_join,
# or, when main got there first (a loaded machine), the sleeper's
# nanosleep, which the recording also ends before (it was in progress at
# the exit). Either is a call the recording does not have.
like "$ERR" 'replay diverged in thread (0|3) ' "the report names the thread that made the call"
like "$ERR" 'replay: +(pthread_join|nanosleep)' "and the call the recording does not have"

# xz -T2 (Debian's xz-utils), whose workers wait on a condition variable
# when main exits.
if command -v xz >/dev/null; then
	head -c 3000000 /dev/urandom | base64 >data
	RUN_STDIN=data spool_run record -q --mode sync -o xz.trace -- xz -T2 -3 -c
	is_rc 0 "xz -T2: record"
	cp run.out xz.rec.out
	# Its worker's last event (a lock of its mutex) may come after main's
	# last: the replay holds the exit for it. That wait was cut short
	# while the agent's own close at exit was recorded as the program's
	# (issue 13: "the program ended before thread 1 replayed its 252
	# recorded events", 1 replay in 6 beside another; tests/integ/173).
	RUN_STDIN=/dev/null spool_run replay -q xz.trace
	is_rc 0 "xz -T2: replay"
	ok "xz -T2: the replay writes the recorded output byte for byte" cmp -s run.out xz.rec.out
else
	skip 3 "xz not installed"
fi
done_testing
