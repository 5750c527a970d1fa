// SPDX-License-Identifier: MIT
/*
 * rr_snaptimer.c - POSIX timers made before a snapshot and used after it
 * (tests/integ/355-snapshot-timers.t, doc/record.md "Replay from a
 * snapshot"). A replay from a snapshot had none of the recording's timers
 * while the program held their ids: Debian's ruby deletes its timer at exit,
 * and that timer_delete failed there (tests/real/142-ruby-all.t).
 *
 * Before its threads start, main makes four timers: A (SIGUSR1, ignored,
 * on CLOCK_MONOTONIC, not armed), B (made and deleted again: a gap in the
 * ids), C (SIGEV_NONE on CLOCK_REALTIME, armed for an hour, every hour),
 * D (SIGUSR2, ignored, to worker 1's thread alone: SIGEV_THREAD_ID, armed
 * for an hour). THREADS workers then take a mutex ROUNDS times each (a
 * switch of the run token each: snapshots fall among them). After the
 * joins main prints, for A, C and D, whether it is armed (timer_gettime),
 * arms it once more (timer_settime) and deletes it (timer_delete); a call
 * that fails is printed and the exit status is 1.
 *
 * With GONE (a third argument "gone"), D signals a thread made for it that
 * has ended before the workers start: a snapshot holds no such thread, and
 * the restore makes D signal the process instead (said, counted).
 *
 * usage: rr_snaptimer [THREADS] [ROUNDS] [gone]   (3 200)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ready_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_c = PTHREAD_COND_INITIALIZER;
static int go, worker1_tid, brief_tid, brief_end;
static long total;
static int rounds;

static void *worker(void *arg)
{
	long id = (long)arg;

	pthread_mutex_lock(&ready_m);
	if (id == 1)
		worker1_tid = (int)gettid();
	pthread_cond_broadcast(&ready_c);
	while (!go)
		pthread_cond_wait(&ready_c, &ready_m);
	pthread_mutex_unlock(&ready_m);
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&m);
		total = total * 7 + id;
		pthread_mutex_unlock(&m);
		sched_yield();
	}
	return NULL;
}

/* GONE: a thread that lives only while D is made */
static void *brief(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ready_m);
	brief_tid = (int)gettid();
	pthread_cond_broadcast(&ready_c);
	while (!brief_end)
		pthread_cond_wait(&ready_c, &ready_m);
	pthread_mutex_unlock(&ready_m);
	return NULL;
}

static int make(timer_t *t, clockid_t clk, int notify, int sig, int tid)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = notify;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = sig;
	sev.sigev_notify_thread_id = tid;
	if (timer_create(clk, &sev, t) != 0) {
		perror("timer_create");
		return -1;
	}
	return 0;
}

static int arm(timer_t t, time_t secs)
{
	struct itimerspec its = {{secs, 0}, {secs, 0}};

	if (timer_settime(t, 0, &its, NULL) != 0) {
		perror("timer_settime");
		return -1;
	}
	return 0;
}

static int finish(const char *name, timer_t t)
{
	struct itimerspec its;
	int armed;

	if (timer_gettime(t, &its) != 0) {
		printf("timer %s: timer_gettime failed: %s\n", name, strerror(errno));
		return 1;
	}
	armed = its.it_value.tv_sec || its.it_value.tv_nsec;
	if (arm(t, 7200) || timer_delete(t) != 0) {
		printf("timer %s: armed %d, timer_settime or timer_delete failed: %s\n", name,
		       armed, strerror(errno));
		return 1;
	}
	printf("timer %s: armed %d, armed again and deleted\n", name, armed);
	return 0;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 3, bad = 0;
	int gone = argc > 3 && !strcmp(argv[3], "gone"), target;
	timer_t a, b, c, d;
	pthread_t th[16], bt;

	rounds = argc > 2 ? atoi(argv[2]) : 200;
	if (nt < 1 || nt > 16)
		nt = 3;
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	for (long i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i + 1));
	if (gone)
		pthread_create(&bt, NULL, brief, NULL);
	pthread_mutex_lock(&ready_m);
	while (!worker1_tid || (gone && !brief_tid))
		pthread_cond_wait(&ready_c, &ready_m);
	pthread_mutex_unlock(&ready_m);
	target = gone ? brief_tid : worker1_tid;
	if (make(&a, CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGUSR1, 0) ||
	    make(&b, CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGUSR1, 0) || timer_delete(b) ||
	    make(&c, CLOCK_REALTIME, SIGEV_NONE, 0, 0) || arm(c, 3600) ||
	    make(&d, CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGUSR2, target) || arm(d, 3600))
		return 1;
	if (gone) {
		pthread_mutex_lock(&ready_m);
		brief_end = 1;
		pthread_cond_broadcast(&ready_c);
		pthread_mutex_unlock(&ready_m);
		pthread_join(bt, NULL);
	}
	pthread_mutex_lock(&ready_m);
	go = 1;
	pthread_cond_broadcast(&ready_c);
	pthread_mutex_unlock(&ready_m);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	printf("total %ld\n", total);
	bad |= finish("A", a);
	bad |= finish("C", c);
	bad |= finish("D", d);
	return bad;
}
