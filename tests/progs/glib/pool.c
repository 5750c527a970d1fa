// SPDX-License-Identifier: MIT
/*
 * pool.c - a GLib program for the futex tests (tests/integ/162-*): a
 * GThreadPool of workers that all update one counter under a contended
 * GMutex (stats_lock), hand results to the main thread through a
 * GAsyncQueue, and a GCond the main thread waits on until every task is
 * done. GLib's locks are futexes called through syscall(SYS_futex), not
 * pthread locks. Built by the test with pkg-config glib-2.0.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

static GMutex stats_lock;
static GMutex done_lock;
static GCond done_cond;
static long counter;
static int done;

/* Hold the mutex long enough that the other workers find it taken. */
static void __attribute__((noinline)) worker(gpointer data, gpointer user)
{
	GAsyncQueue *q = user;

	for (int i = 0; i < 200; i++) {
		g_mutex_lock(&stats_lock);
		for (volatile int k = 0; k < 2000; k++)
			;
		counter++;
		g_mutex_unlock(&stats_lock);
	}
	g_async_queue_push(q, data);
	g_mutex_lock(&done_lock);
	done++;
	g_cond_signal(&done_cond);
	g_mutex_unlock(&done_lock);
}

int main(int argc, char **argv)
{
	int ntasks = argc > 1 ? atoi(argv[1]) : 8;
	GAsyncQueue *q = g_async_queue_new();
	GThreadPool *pool = g_thread_pool_new(worker, q, 4, TRUE, NULL);

	for (int i = 0; i < ntasks; i++)
		g_thread_pool_push(pool, GINT_TO_POINTER(i + 1), NULL);
	g_mutex_lock(&done_lock);
	while (done < ntasks)
		g_cond_wait(&done_cond, &done_lock);
	g_mutex_unlock(&done_lock);
	for (int i = 0; i < ntasks; i++)
		g_async_queue_pop(q);
	g_thread_pool_free(pool, FALSE, TRUE);
	g_async_queue_unref(q);
	printf("counter %ld\n", counter);
	return counter == 200L * ntasks ? 0 : 1;
}
