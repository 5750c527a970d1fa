// SPDX-License-Identifier: MIT
/*
 * rr_stuck - a program that never ends because a thread waits for good,
 * for the stuck watchdog of record/replay (doc/record.md, "A thread that
 * runs without reaching a switch point"; tests/integ/132-rr-stuck.t).
 *
 *   rr_stuck HOW
 *
 * A worker waits for something no thread will ever do, and the main
 * thread joins it (or, for spin and uninterposed, polls a flag with
 * usleep, so that it waits for the run token in serial mode):
 *   cond       pthread_cond_wait on a condition nobody signals
 *   mutex      pthread_mutex_lock of a mutex the main thread holds
 *   rwlock     pthread_rwlock_rdlock of a rwlock the main thread write-holds
 *   sem        sem_wait on a semaphore nobody posts
 *   barrier    pthread_barrier_wait of a barrier of 3 (only 2 arrive: main
 *              waits there too)
 *   join       pthread_join of the main thread, which joins the worker
 *   spin       a loop on a flag nobody sets, calling nothing
 *   spinjoin   the same, while the main thread is in pthread_join
 *   uninterposed  msgrcv on a message queue nobody sends to (a blocking
 *              call spool does not interpose), main in pthread_join
 *
 * Prints "started" first; never prints "end". Two more end, late, and
 * must not be reported:
 *   slowinput  main waits on a condition that a worker signals once its
 *              read of stdin returns (a server waiting for a client)
 *   compute    main joins a worker that computes for a while without a
 *              call (its result is what the join waits for)
 *   computepoll  a worker computes for a while without a call (a counter
 *              on its stack) while main polls a flag with usleep: main
 *              waits for the run token, not in pthread_join
 *   timedwait  main joins a worker in a pthread_cond_timedwait nobody
 *              signals, which times out after 2.5 s
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static sem_t sem;
static pthread_t main_thread;
static volatile int flag, never;
static const char *how;

static void *worker(void *arg)
{
	(void)arg;
	if (!strcmp(how, "cond")) {
		pthread_mutex_lock(&mu);
		while (!never)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
	} else if (!strcmp(how, "mutex")) {
		pthread_mutex_lock(&mu);
	} else if (!strcmp(how, "rwlock")) {
		pthread_rwlock_rdlock(&rw);
	} else if (!strcmp(how, "sem")) {
		sem_wait(&sem);
	} else if (!strcmp(how, "barrier")) {
		pthread_barrier_wait(&bar);
	} else if (!strcmp(how, "join")) {
		pthread_join(main_thread, NULL);
	} else if (!strcmp(how, "spin") || !strcmp(how, "spinjoin")) {
		while (!never)
			;
	} else if (!strcmp(how, "slowinput")) {
		char c;

		if (read(0, &c, 1) < 0)
			perror("read");
		pthread_mutex_lock(&mu);
		flag = 1;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	} else if (!strcmp(how, "timedwait")) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 2;
		ts.tv_nsec += 500000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&mu);
		while (!never && pthread_cond_timedwait(&cv, &mu, &ts) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&mu);
	} else if (!strcmp(how, "compute") || !strcmp(how, "computepoll")) {
		volatile unsigned long x = 0;
		unsigned long n = how[7] ? 2000000000ul : 5000000000ul;

		for (unsigned long i = 0; i < n; i++)
			x += i;
	} else if (!strcmp(how, "uninterposed")) {
		struct {
			long type;
			char text[8];
		} m;
		int q = msgget(IPC_PRIVATE, 0600);

		msgrcv(q, &m, sizeof(m.text), 0, 0);
	}
	flag = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	how = argc > 1 ? argv[1] : "cond";
	main_thread = pthread_self();
	sem_init(&sem, 0, 0);
	pthread_barrier_init(&bar, NULL, 3);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("started\n");
	if (!strcmp(how, "mutex"))
		pthread_mutex_lock(&mu);
	if (!strcmp(how, "rwlock"))
		pthread_rwlock_wrlock(&rw);
	pthread_create(&t, NULL, worker, NULL);
	if (!strcmp(how, "barrier"))
		pthread_barrier_wait(&bar);
	if (!strcmp(how, "spin") || !strcmp(how, "uninterposed-poll") || !strcmp(how, "computepoll"))
		while (!flag)
			usleep(1000);
	if (!strcmp(how, "slowinput")) {
		pthread_mutex_lock(&mu);
		while (!flag)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
	}
	pthread_join(t, NULL);
	printf("end\n");
	return 0;
}
