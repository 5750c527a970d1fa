// SPDX-License-Identifier: MIT
/*
 * rr_stackwords.c - reads the stack words below its own frames that a
 * recorded call left behind, as a conservative garbage collector (Ruby's,
 * Boehm's) does when it scans a stack whose frames hold slots no call of
 * the program wrote. A recording and its replay must print the same: the
 * agent's interposers do other work in each mode (a real read and a log
 * write, or a log read), so they must leave the program's stack the same.
 *
 * For each call: fill STACK_SPAN bytes below the caller's frame with a
 * pattern, make the call, then print a hash of those bytes and the depth
 * of the deepest word that no longer holds the pattern (what the call and
 * the agent under it wrote). Each step is a noinline function called from
 * main at one depth, so the fill, the call and the scan see one region.
 *
 * It also prints 8 bytes of getrandom made through syscall() (a replay
 * prints the recorded ones) and initialises its mutex with
 * pthread_mutex_init (the lock's init site is main), and runs a coroutine
 * on a small stack inside its own stack, then on one of its own, each
 * with a pattern below it, which must stay.
 *
 * usage: rr_stackwords
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define STACK_SPAN (48 * 1024)
#define STACK_SKIP 64 /* the scanning function's own frame */
#define PATTERN 0x5a5a5a5a5a5a5a5aull

static int pfd[2];
static pthread_mutex_t mu;
static long shared;

/* The region: from STACK_SKIP below this function's frame down. Written
 * and read through a volatile pointer: it is below the stack pointer. */
static __attribute__((noinline)) void fill(void)
{
	volatile uint64_t *p = (volatile uint64_t *)((char *)__builtin_frame_address(0) - STACK_SKIP);

	for (size_t i = 1; i <= STACK_SPAN / 8; i++)
		p[-(long)i] = PATTERN;
}

static uint64_t scan_hash;
static size_t scan_deepest;

/* No call and no array: its frame is a few words, above the region. */
static __attribute__((noinline)) void scan(void)
{
	volatile uint64_t *p = (volatile uint64_t *)((char *)__builtin_frame_address(0) - STACK_SKIP);
	uint64_t h = 1469598103934665603ull;
	size_t deepest = 0;

	for (size_t i = 1; i <= STACK_SPAN / 8; i++) {
		uint64_t v = p[-(long)i];

		h = (h ^ v) * 1099511628211ull;
		if (v != PATTERN)
			deepest = i * 8;
	}
	scan_hash = h;
	scan_deepest = deepest;
}

/* One write(2), after the scan (stdio would dirty the region first); its
 * result is not looked at: a replay gives back the recorded one. */
static void show(const char *what)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s: deepest %zu hash %016llx\n", what, scan_deepest,
			 (unsigned long long)scan_hash);

	if (write(1, line, (size_t)n) < 0)
		_exit(2);
}

static __attribute__((noinline)) void call_read(void)
{
	char b[16];

	if (read(pfd[0], b, 4) != 4)
		_exit(3);
}

static __attribute__((noinline)) void call_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
}

static __attribute__((noinline)) void call_random(void)
{
	unsigned char b[8];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		_exit(4);
}

static __attribute__((noinline)) void call_lock(void)
{
	pthread_mutex_lock(&mu);
	shared++;
	pthread_mutex_unlock(&mu);
}

/* A coroutine on a 16 KiB stack of the program's own, with 16 KiB of
 * pattern right below it: the agent zeroes only on a thread's own stack,
 * never below a stack it does not know (the pattern stays). */
static uint64_t co_area[4096] __attribute__((aligned(16)));
static ucontext_t co_main, co_ctx;

static void co_body(void)
{
	struct timespec ts;
	char b[4];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (read(pfd[0], b, 4) != 4)
		_exit(5);
	pthread_mutex_lock(&mu);
	shared++;
	pthread_mutex_unlock(&mu);
}

static void coroutine(void)
{
	volatile size_t bad = 0;

	for (size_t i = 0; i < 2048; i++)
		co_area[i] = PATTERN;
	if (getcontext(&co_ctx))
		_exit(6);
	co_ctx.uc_stack.ss_sp = &co_area[2048];
	co_ctx.uc_stack.ss_size = 2048 * 8;
	co_ctx.uc_link = &co_main;
	makecontext(&co_ctx, co_body, 0);
	if (swapcontext(&co_main, &co_ctx))
		_exit(7);
	for (size_t i = 0; i < 2048; i++)
		bad += co_area[i] != PATTERN;
	printf("coroutine: %zu words below its stack changed\n", (size_t)bad);
	fflush(stdout);
}

/* The same on a buffer inside this thread's own stack (a local array):
 * its bottom half is a pattern, its top half the coroutine's stack, so
 * zeroing below the coroutine's frames would reach the pattern (frames of
 * the thread still live, in a program that keeps data there). A thread
 * that calls swapcontext is not zeroed any more. */
static __attribute__((noinline)) void coroutine_on_stack(void)
{
	uint64_t st[4096];
	volatile size_t bad = 0;

	for (size_t i = 0; i < 2048; i++)
		((volatile uint64_t *)st)[i] = PATTERN;
	if (getcontext(&co_ctx))
		_exit(6);
	co_ctx.uc_stack.ss_sp = &st[2048];
	co_ctx.uc_stack.ss_size = 2048 * 8;
	co_ctx.uc_link = &co_main;
	makecontext(&co_ctx, co_body, 0);
	if (swapcontext(&co_main, &co_ctx))
		_exit(7);
	for (size_t i = 0; i < 2048; i++)
		bad += ((volatile uint64_t *)st)[i] != PATTERN;
	printf("coroutine on the thread's stack: %zu words below its stack changed\n", (size_t)bad);
	fflush(stdout);
}

static void *other(void *arg)
{
	for (int i = 0; i < 200; i++)
		call_lock();
	return arg;
}

int main(void)
{
	pthread_t t;

	unsigned char rnd[8];

	/* (its site is main's, also through a stub: AGENT_RET_IP) */
	pthread_mutex_init(&mu, NULL);
	if (pipe(pfd) || write(pfd[1], "abcdefghijklmnopqrst", 20) != 20)
		return 1;
	/* an input through syscall(): the interposer looks at its return
	 * address to tell the program's calls from the agent's */
	if (syscall(SYS_getrandom, rnd, sizeof(rnd), 0) != (long)sizeof(rnd))
		return 1;
	printf("syscall getrandom %02x%02x%02x%02x%02x%02x%02x%02x\n", rnd[0], rnd[1], rnd[2], rnd[3],
	       rnd[4], rnd[5], rnd[6], rnd[7]);
	fflush(stdout);
	if (pthread_create(&t, NULL, other, NULL))
		return 1;
	for (int round = 0; round < 2; round++) {
		fill();
		call_read();
		scan();
		show("read");
		fill();
		call_clock();
		scan();
		show("clock_gettime");
		fill();
		call_random();
		scan();
		show("getrandom");
		fill();
		call_lock();
		scan();
		show("mutex");
	}
	coroutine_on_stack();
	coroutine();
	pthread_join(t, NULL);
	printf("shared %ld\n", shared); /* 200 + 2 + 2 */
	return 0;
}
