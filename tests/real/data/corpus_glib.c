// SPDX-License-Identifier: MIT
/*
 * corpus_glib.c - a GLib program as people write them, for the
 * record/replay corpus (tests/real/95-corpus-glib.t): a GThreadPool of 3
 * workers summing hashes under a GMutex, a GAsyncQueue carrying results
 * back, a GCond the main thread waits on until every task is done, and a
 * GHashTable; it prints the totals and writes a result file. GLib's
 * GMutex and GCond are its own futexes, not pthread's: built with the
 * system gcc and pkg-config by the test.
 */
#include <glib.h>
#include <stdio.h>

static GMutex glib_lock;
static GCond glib_done_cond;
static guint glib_done;
static guint64 glib_total;
static GHashTable *glib_seen;
static GAsyncQueue *glib_results;

static void glib_task(gpointer data, gpointer user)
{
	guint n = GPOINTER_TO_UINT(data);
	guint64 h = n;

	(void)user;
	for (int i = 0; i < 20000; i++)
		h = h * 6364136223846793005ull + 1442695040888963407ull;
	g_mutex_lock(&glib_lock);
	glib_total += h >> 40;
	g_hash_table_insert(glib_seen, GUINT_TO_POINTER(n), GUINT_TO_POINTER((guint)(h >> 48)));
	glib_done++;
	g_cond_signal(&glib_done_cond);
	g_mutex_unlock(&glib_lock);
	g_async_queue_push(glib_results, GUINT_TO_POINTER(n));
}

int main(int argc, char **argv)
{
	guint ntasks = argc > 1 ? (guint)atoi(argv[1]) : 400, first = 0;
	GThreadPool *pool;
	FILE *f;

	glib_seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	glib_results = g_async_queue_new();
	pool = g_thread_pool_new(glib_task, NULL, 3, TRUE, NULL);
	for (guint i = 1; i <= ntasks; i++)
		g_thread_pool_push(pool, GUINT_TO_POINTER(i), NULL);
	g_mutex_lock(&glib_lock);
	while (glib_done < ntasks)
		g_cond_wait(&glib_done_cond, &glib_lock);
	g_mutex_unlock(&glib_lock);
	for (guint i = 0; i < ntasks; i++) {
		guint n = GPOINTER_TO_UINT(g_async_queue_pop(glib_results));

		if (i == 0)
			first = n;
	}
	g_thread_pool_free(pool, FALSE, TRUE);
	f = fopen("result.txt", "w");
	if (f) {
		for (guint i = 1; i <= ntasks; i++)
			fprintf(f, "%u ", GPOINTER_TO_UINT(g_hash_table_lookup(glib_seen, GUINT_TO_POINTER(i))));
		fclose(f);
	}
	printf("tasks %u total %llu first finished %u\n", ntasks, (unsigned long long)glib_total,
	       first);
	return 0;
}
