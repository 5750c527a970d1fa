#!/bin/bash
# SPDX-License-Identifier: MIT
# 388-rr-underscore-exit.t - a program that ends with _exit while a worker
# thread is still at its last events replays in sync mode. Debian's
# ld.lld --threads=2 ends with _exit (lld::exitLld) while its thread pool's
# workers take their queue's lock once more on the way to their wait:
# every sync replay stopped as diverged, "the program ended before thread 1
# replayed its 11967 recorded events (it replayed 11966)". The replay waits
# at exit() for the other threads' recorded events (agent_rr_exit_wait);
# _exit runs no destructor, so the agent now interposes _exit and _Exit to
# wait there too.
#
# The program: a worker takes jobs under a mutex and a condition variable;
# once they are all taken and main said there are no more, it says done, then takes the mutex once more and waits;
# main sees done, prints the jobs' sum, works a few milliseconds and calls
# _exit (or _Exit); the worker takes and releases the mutex 50 times more
# and waits. Nothing
# orders those locks with main's _exit: the recording has those the worker
# made in time, and a replay must replay them all before the _exit (before,
# main often got there first). tests/real/153 shows it on ld.lld.
. "$(dirname "$0")/lib.sh"

need_cc
plan 8

cat >uexit.c <<'EOF2'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int jobs, done;
static long sum;
static void *worker(void *a)
{
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!jobs && !done)
			pthread_cond_wait(&cv, &mu);
		if (!jobs)
			break;
		sum += jobs--;
	}
	done = 2;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	/* the last events, after main has what it waits for */
	for (int i = 0; i < 50; i++) {
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	return a;
}
int main(int argc, char **argv)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&mu);
		jobs++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	while (done != 2)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	printf("sum %ld\n", sum);
	fflush(stdout);
	/* the worker's locks after done are ordered with nothing main does
	 * (a few milliseconds of work let the recording have them) */
	for (volatile long k = 0; k < 3000000; k++)
		;
	if (argc > 1 && !strcmp(argv[1], "_Exit"))
		_Exit(0);
	_exit(0);
}
EOF2
"$CC" -O1 -pthread -o uexit uexit.c || diag "uexit does not build"

for how in _exit _Exit; do
	spool_run record --mode sync -o "$how.trace" -- ./uexit "$how"
	ok "sync: record of a program that ends with $how: exit 0, its output" \
		bash -c "[ $RC = 0 ] && grep -q '^sum [0-9]' run.out" || show_run
	cp run.out "$how.out"
	replays_same 3 0 "$how.out" -q "$how.trace"
	is "$SAME" 3 "sync: 3 replays of 3 end as recorded (none stops before the worker's last events)"
done
spool_run record --mode serial -o serial.trace -- ./uexit
cp run.out serial.out
is "$RC" 0 "serial: record of the same (_exit)"
replays_same 2 0 serial.out -q serial.trace
is "$SAME" 2 "serial: 2 replays of 2 end as recorded"
# the snapshot copies of a serial recording end with the program, as at exit
spool_run record --mode serial --snap-period 5 -o snap.trace -- ./uexit
is "$RC" 0 "serial --snap-period 5: record exits 0 (no snapshot copy left running)"
unlike "$ERR" "still running" "  and says no process was still running"
done_testing
