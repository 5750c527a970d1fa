// SPDX-License-Identifier: MIT
/*
 * rr_timed.c - timed waits that must time out, and one that must not, for
 * serial record/replay: a condition wait on a condition nobody signals
 * (CLOCK_REALTIME and a CLOCK_MONOTONIC condvar), a mutex_timedlock and a
 * rwlock_timedwrlock on locks another thread holds until the main thread
 * is done, a sem_timedwait on a semaphore nobody posts; then a condition
 * that a second thread does signal in time. Each result is printed with how
 * many times the wait's deadline was checked, a count only a replay repeats.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER, cm, go = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static int done, ready, flag;

static struct timespec deadline(clockid_t clk, long ms)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	ts.tv_nsec += ms * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

/* Holds `held` and rw until main says done. */
static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&held);
	pthread_rwlock_rdlock(&rw);
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_broadcast(&go);
	while (!done)
		pthread_cond_wait(&go, &m);
	pthread_mutex_unlock(&m);
	pthread_rwlock_unlock(&rw);
	pthread_mutex_unlock(&held);
	return NULL;
}

static void *signaller(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	flag = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	return NULL;
}

static const char *res(int rc)
{
	return rc == ETIMEDOUT ? "ETIMEDOUT" : rc == 0 ? "ok" : "other";
}

int main(void)
{
	pthread_condattr_t a;
	pthread_t h, s;
	struct timespec ts;
	int rc, n;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&cm, &a);
	sem_init(&sem, 0, 0);

	pthread_create(&h, NULL, holder, NULL);
	pthread_mutex_lock(&m);
	while (!ready)
		pthread_cond_wait(&go, &m);

	ts = deadline(CLOCK_REALTIME, 30);
	n = 0;
	do
		n++, rc = pthread_cond_timedwait(&c, &m, &ts);
	while (rc == 0);
	printf("cond_timedwait (realtime): %s\n", res(rc));
	ts = deadline(CLOCK_MONOTONIC, 30);
	do
		n++, rc = pthread_cond_timedwait(&cm, &m, &ts);
	while (rc == 0);
	printf("cond_timedwait (monotonic): %s\n", res(rc));
	pthread_mutex_unlock(&m);

	ts = deadline(CLOCK_REALTIME, 20);
	printf("mutex_timedlock: %s\n", res(pthread_mutex_timedlock(&held, &ts)));
	ts = deadline(CLOCK_REALTIME, 20);
	printf("rwlock_timedwrlock: %s\n", res(pthread_rwlock_timedwrlock(&rw, &ts)));
	ts = deadline(CLOCK_REALTIME, 20);
	rc = sem_timedwait(&sem, &ts);
	printf("sem_timedwait: %s\n", rc < 0 && errno == ETIMEDOUT ? "ETIMEDOUT" : "other");

	pthread_mutex_lock(&m);
	done = 1;
	pthread_cond_broadcast(&go);
	pthread_create(&s, NULL, signaller, NULL);
	ts = deadline(CLOCK_REALTIME, 10000);
	rc = 0;
	while (!flag && rc == 0)
		n++, rc = pthread_cond_timedwait(&c, &m, &ts);
	printf("signalled cond_timedwait: %s, flag %d\n", res(rc), flag);
	pthread_mutex_unlock(&m);
	pthread_join(s, NULL);
	pthread_join(h, NULL);
	printf("condition waits returned %d times\n", n);
	return 0;
}
