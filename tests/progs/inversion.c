// SPDX-License-Identifier: MIT
/*
 * inversion - a lock-order inversion that never deadlocks in this run.
 *
 * Thread 1 runs lock_a_then_b(): locks lock_a, then lock_b. Main joins it;
 * only then does thread 2 run lock_b_then_a(): locks lock_b, then lock_a.
 * The threads never overlap, so the program always finishes, but the two
 * orders together could deadlock in another run: spool must report the
 * inversion, with both call sites symbolized to these two functions.
 *
 * The functions are noinline so that the call sites really are inside them.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static volatile int inversion_work;

__attribute__((noinline)) static void *lock_a_then_b(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock_a);
	pthread_mutex_lock(&lock_b);
	inversion_work++;
	pthread_mutex_unlock(&lock_b);
	pthread_mutex_unlock(&lock_a);
	return NULL;
}

__attribute__((noinline)) static void *lock_b_then_a(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock_b);
	pthread_mutex_lock(&lock_a);
	inversion_work++;
	pthread_mutex_unlock(&lock_a);
	pthread_mutex_unlock(&lock_b);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, lock_a_then_b, NULL);
	pthread_join(t1, NULL);
	pthread_create(&t2, NULL, lock_b_then_a, NULL);
	pthread_join(t2, NULL);
	return inversion_work == 2 ? 0 : 1;
}
