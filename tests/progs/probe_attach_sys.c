// SPDX-License-Identifier: MIT
/*
 * probe_attach_sys.c - target of spool probe -p PID -e sys:io -e sys:mem
 * (tests/integ/333-probe-attach-sys-io.t): known I/O and allocations made
 * only while spool is attached, by a thread that existed before the attach.
 *
 *   probe_attach_sys DIR ROUNDS
 *
 * Starts a worker thread, then writes DIR/ready and waits for DIR/go. The
 * worker waits for go too, then makes ROUNDS rounds of: one write of
 * 100 + round bytes to a pipe, malloc(50 + round), calloc(round + 1, 8),
 * free of the malloc'd block (the calloc'd one is kept). main reads the
 * pipe back with read() until it has every byte. Then DIR/worked, and both
 * wait for DIR/stop (spool detaches meanwhile). Each thread counts what it
 * did with the rules of doc/probe.md (calls, bytes asked, blocks freed,
 * usable bytes allocated minus freed; read calls and bytes as returned).
 *
 * Before the attach and after the detach it takes the addresses of write,
 * read, malloc and free (the program's own GOT entries); after stop, one
 * more write and malloc (the detached program runs on), then prints:
 *   worker TID CALLS BYTES FREES LIVE WRITES WBYTES
 *   main TID READS RBYTES
 *   got same|changed
 * "got same": the addresses after the detach are the ones from before.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sync_files.h"

static int rounds, pfd[2];
static long w_tid, w_calls, w_bytes, w_frees, w_live, w_writes, w_wbytes;

/* Each call loads the addresses again (noipa: not folded into one). */
__attribute__((noipa)) static void addrs(void *a[4])
{
	a[0] = (void *)write, a[1] = (void *)read;
	a[2] = (void *)malloc, a[3] = (void *)free;
}

static void *worker(void *arg)
{
	char buf[512];

	(void)arg;
	w_tid = syscall(SYS_gettid);
	memset(buf, 'w', sizeof(buf));
	wait_file("go");
	for (int i = 0; i < rounds; i++) {
		size_t n = 100 + (size_t)i;
		ssize_t r = write(pfd[1], buf, n);
		void *a = malloc(50 + (size_t)i), *b = calloc((size_t)i + 1, 8);

		w_writes++;
		w_wbytes += r > 0 ? r : 0;
		w_calls += 2;
		if (a) {
			w_bytes += 50 + i;
			w_live += (long)malloc_usable_size(a);
		}
		if (b) {
			w_bytes += (i + 1) * 8;
			w_live += (long)malloc_usable_size(b);
		}
		if (a) {
			w_live -= (long)malloc_usable_size(a);
			w_frees++;
			free(a);
		}
	}
	wait_file("stop");
	return NULL;
}

int main(int argc, char **argv)
{
	void *before[4], *after[4];
	long m_reads = 0, m_rbytes = 0, want = 0;
	pthread_t t;
	char buf[4096];

	if (argc < 3)
		return 2;
	sync_dir = argv[1];
	rounds = atoi(argv[2]);
	if (rounds < 1 || rounds > 300 || pipe(pfd))
		return 2;
	addrs(before);
	for (int i = 0; i < rounds; i++)
		want += 100 + i;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	make_file("ready");
	wait_file("go");
	while (m_rbytes < want) {
		ssize_t r = read(pfd[0], buf, sizeof(buf));

		m_reads++;
		if (r <= 0)
			return 1;
		m_rbytes += r;
	}
	make_file("worked");
	wait_file("stop");
	pthread_join(t, NULL);
	addrs(after);
	free(malloc(10));
	if (write(pfd[1], "x", 1) != 1)
		return 1;
	printf("worker %ld %ld %ld %ld %ld %ld %ld\n", w_tid, w_calls, w_bytes, w_frees, w_live,
	       w_writes, w_wbytes);
	printf("main %ld %ld %ld\n", (long)syscall(SYS_gettid), m_reads, m_rbytes);
	printf("got %s\n", memcmp(before, after, sizeof(before)) ? "changed" : "same");
	return 0;
}
