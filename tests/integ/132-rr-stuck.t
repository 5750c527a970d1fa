#!/bin/bash
# SPDX-License-Identifier: MIT
# 132-rr-stuck.t - the serial stuck watchdog for every kind of wait
# (doc/record.md, "A thread that runs without reaching a switch point"):
# tests/progs/rr_stuck.c has a worker wait for good in pthread_cond_wait,
# pthread_mutex_lock, a rwlock, sem_wait, pthread_barrier_wait (main waits
# there too), pthread_join of the main thread (which joins it), a spin
# without calls (main polls with usleep), or msgrcv (a blocking call spool
# does not interpose; main in pthread_join). A serial recording with
# --stuck-ms 400 stops (the lock waits used to retry for good, and nothing
# watched a thread in pthread_join) and says what each thread waits in;
# a replay of that recording ends too, where the recording ends (in sync
# mode, where a recording of such a program is interrupted, too). Three
# programs that wait long but not for good are not reported: a condition
# wait for a thread blocked in a read of stdin that comes late, a join of
# a worker that computes for seconds without a call, and a timed condition
# wait nobody signals (it reads the clock between its retries).
. "$(dirname "$0")/lib.sh"

plan 23
T_TIMEOUT=120
P="$PROGS/rr_stuck"

# how: what the record's error must say
while read -r how want; do
	spool_run record --stuck-ms 400 -o "$how.trace" -- "$P" "$how"
	if [ "$RC" != 0 ] && [ "$RC" != 124 ] && grep -q '^started$' run.out &&
		! grep -q '^end$' run.out && grep -Eq "record stuck: .*$want" run.err; then
		pass "record $how: stops and says: $want"
	else
		fail "record $how: stops and says: $want"
		show_run
	fi
	spool_run replay --stuck-ms 400 -q "$how.trace"
	if [ "$RC" != 0 ] && [ "$RC" != 124 ] &&
		grep -Eq 'replay reached the end of the recording|replay stuck' run.err; then
		pass "replay $how: ends where the recording ends"
	else
		fail "replay $how: ends where the recording ends"
		show_run
	fi
done <<'EOF2'
cond thread 0 waits in pthread_join; thread 1 retries pthread_cond_wait
mutex thread 0 waits in pthread_join; thread 1 retries pthread_mutex_lock
rwlock thread 0 waits in pthread_join; thread 1 retries a rwlock lock
sem thread 0 waits in pthread_join; thread 1 retries sem_wait
barrier thread 0 retries pthread_barrier_wait; thread 1 retries pthread_barrier_wait
join thread 0 waits in pthread_join; thread 1 waits in pthread_join
spin thread 1 holds it and has not reached a switch point
uninterposed thread 1 holds the run token and sleeps in the kernel, in a call spool does not interpose
EOF2

# Sync mode does not watch a recording (the threads wait in the real
# calls, a deadlock hangs as without spool): the recording is interrupted.
# Its replay ends where it ends, also when a thread waits in a call spool
# does not interpose (it used to hang: nothing noticed the end).
for how in cond uninterposed; do
	timeout -k 10 -s INT 3 "$SPOOL" record -q --mode sync -o "sync-$how.trace" -- "$P" "$how" \
		>run.out 2>run.err </dev/null
	spool_run replay --stuck-ms 1000 -q "sync-$how.trace"
	if [ "$RC" != 0 ] && [ "$RC" != 124 ] &&
		grep -q 'replay reached the end of the recording' run.err; then
		pass "sync $how, interrupted: the replay ends where the recording ends"
	else
		fail "sync $how, interrupted: the replay ends where the recording ends"
		show_run
	fi
done

# Long waits that end: not reported.
timeout -k 10 "$T_TIMEOUT" bash -c "(sleep 2; echo x) | '$SPOOL' record --stuck-ms 500 -o slow.trace -- '$P' slowinput" >run.out 2>run.err
RC=$?
if [ "$RC" = 0 ] && grep -q '^end$' run.out && ! grep -q 'record stuck' run.err; then
	pass "record slowinput: a wait for a thread blocked in a read is not a deadlock"
else
	fail "record slowinput: a wait for a thread blocked in a read is not a deadlock"
	show_run
fi
spool_run record --stuck-ms 500 -o compute.trace -- "$P" compute
if [ "$RC" = 0 ] && grep -q '^end$' run.out && ! grep -q 'record stuck' run.err; then
	pass "record compute: a join of a thread that computes without calls is not reported"
else
	fail "record compute: a join of a thread that computes without calls is not reported"
	show_run
fi
spool_run record --stuck-ms 500 -o timed.trace -- "$P" timedwait
if [ "$RC" = 0 ] && grep -q '^end$' run.out && ! grep -q 'record stuck' run.err; then
	pass "record timedwait: a timed wait that nobody signals is not a deadlock"
else
	fail "record timedwait: a timed wait that nobody signals is not a deadlock"
	show_run
fi
# (the same in sync mode: nothing is serialized there)
spool_run record --mode sync --stuck-ms 500 -o compute-sync.trace -- "$P" compute
is "$RC" 0 "record compute, sync mode: ends normally"
spool_run replay -q --stuck-ms 500 compute.trace
is "$RC" 0 "replay compute: ends normally"
done_testing
