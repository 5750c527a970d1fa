// SPDX-License-Identifier: MIT
/*
 * thread_churn.c - a program that makes threads all the time, with
 * pthread_create and with a raw clone system call of its own (no libc
 * wrapper, no TLS of its own: the child shares its creator's, which waits
 * for it), while spool probe -p attaches and detaches
 * (tests/integ/266-probe-attach-thread-churn.t).
 *
 *   thread_churn STOP
 *
 * Prints "ready", then in rounds until the file STOP exists: two pthreads
 * side by side, then one raw clone child; each calls churn_leaf (a plain
 * function: jump probes) and churn_leaf_i3 (a computed goto: int3 probes)
 * 200 times and checks the sum against the closed form. At the end prints
 * "pthreads ok|BAD", "raw ok|BAD" and "code same|CHANGED" (a checksum of
 * its own text, taken before "ready" and again at the end: spool must
 * leave every byte as it was), and the number of threads on stderr.
 */
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "raw_clone.h"

#define CHURN_CALLS 200

__attribute__((noinline)) long churn_leaf(long x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) long churn_leaf_i3(long x)
{
	static void *const lab[] = {&&even, &&odd};

	goto *lab[x & 1];
even:
	return x * 5;
odd:
	return x * 7;
}

static long churn_want(void)
{
	long s = 0;

	for (long i = 0; i < CHURN_CALLS; i++)
		s += i * 3 + 1 + ((i & 1) ? i * 7 : i * 5);
	return s;
}

static volatile int churn_bad_pthread, churn_bad_raw;

/* No libc call: a raw clone child has no TLS of its own. */
static int churn_work(void)
{
	long s = 0;

	for (long i = 0; i < CHURN_CALLS; i++)
		s += churn_leaf(i) + churn_leaf_i3(i);
	return s == churn_want() ? 0 : 1;
}

static void *churn_pthread(void *arg)
{
	(void)arg;
	if (churn_work())
		churn_bad_pthread = 1;
	return NULL;
}

static int churn_raw_main(void *arg)
{
	(void)arg;
	if (churn_work())
		churn_bad_raw = 1;
	return 0;
}

static char churn_stack[256 * 1024] __attribute__((aligned(16)));

/* A raw clone child, waited for (its exit clears ctid and wakes us). */
static int churn_raw(void)
{
	volatile int ctid = 1;
	long r;

	r = raw_clone(RAW_CLONE_THREAD,
		      raw_clone_push(churn_stack + sizeof(churn_stack), churn_raw_main, NULL), &ctid);
	if (r < 0)
		return -1;
	while (ctid)
		syscall(SYS_futex, &ctid, FUTEX_WAIT, 1, NULL, NULL, 0);
	return 0;
}

struct churn_text {
	uint64_t sum;
	int found;
};

static int churn_text_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct churn_text *t = arg;

	(void)size;
	if (t->found)
		return 1;
	t->found = 1; /* the first object is the program itself */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (size_t k = 0; k < ph->p_filesz; k++)
			t->sum = t->sum * 131 + p[k];
	}
	return 1;
}

static uint64_t churn_text_sum(void)
{
	struct churn_text t = {0, 0};

	dl_iterate_phdr(churn_text_cb, &t);
	return t.sum;
}

int main(int argc, char **argv)
{
	uint64_t before = churn_text_sum();
	long npthreads = 0, nraw = 0;
	int raw_failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: thread_churn STOP\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (access(argv[1], F_OK)) {
		pthread_t th[2];

		for (int i = 0; i < 2; i++)
			if (pthread_create(&th[i], NULL, churn_pthread, NULL))
				return 3;
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		npthreads += 2;
		if (churn_raw())
			raw_failed = 1;
		else
			nraw++;
	}
	printf("pthreads %s\nraw %s\ncode %s\n", churn_bad_pthread ? "BAD" : "ok",
	       churn_bad_raw || raw_failed ? "BAD" : "ok",
	       churn_text_sum() == before ? "same" : "CHANGED");
	fprintf(stderr, "thread_churn: %ld pthreads, %ld raw clone threads\n", npthreads, nraw);
	return 0;
}
