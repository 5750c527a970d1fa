// SPDX-License-Identifier: MIT
/*
 * probe_retaddr.c - target of tests/integ/195-probe-retaddr.t: functions
 * whose ret GCC -O2 leaves without a 5-byte window (a ret that a branch
 * from elsewhere targets, code right after it), so spool hooks their exits
 * through the return address; called many times, recursively, from two
 * threads, from a signal handler, through tail calls, and left by longjmp.
 * Built by the test with the compiler's defaults plus -O2 (the Makefile's
 * -O1 build is unused).
 *
 *   probe_retaddr [N] [DEPTH]   (default 1000 and 50)
 *
 * Output: one "name calls" line per probed function, counted by the
 * function itself, then "jumped N": the activations a longjmp left without
 * their return (spool's report counts them "without a seen exit"), then
 * "sum X", which depends on every return value.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct ra_obj {
	int kind, refs;
	struct ra_obj *next;
	long val;
};

static long n_release, n_scan, n_pick, n_bump, n_deep, n_jump, n_sleepy, n_tail, jumped;
static jmp_buf ra_env;

#define COUNT(c) __atomic_fetch_add(&(c), 1, __ATOMIC_RELAXED)

/* ret targeted by the early return's branch, code after it */
__attribute__((noinline)) void ra_release(struct ra_obj *o)
{
	COUNT(n_release);
	if (!o)
		return;
	if (--o->refs)
		return;
	o->kind = 0;
}

__attribute__((noinline)) long ra_scan(const long *v, size_t n)
{
	long best = 0;

	COUNT(n_scan);
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0)
			return best;
		if (v[i] > best)
			best = v[i];
	}
	return best;
}

__attribute__((noinline)) int ra_pick(struct ra_obj *o)
{
	COUNT(n_pick);
	if (o->kind) {
		if (o->refs)
			return 1;
		o->val++;
		return 2;
	}
	return 0;
}

__attribute__((noinline)) void ra_bump(struct ra_obj *o, int n)
{
	COUNT(n_bump);
	while (n--) {
		if (!o)
			return;
		o->refs++;
		o = o->next;
	}
}

/* recursion: every level's exit is seen */
__attribute__((noinline)) long ra_deep(struct ra_obj *o, int d)
{
	long r;

	COUNT(n_deep);
	if (d <= 0)
		return o->refs;
	if (o->kind == 7)
		return d;
	r = ra_deep(o, d - 1);
	o->val ^= r;
	return r + d;
}

/* left by longjmp from the bottom: its frames never return */
__attribute__((noinline)) long ra_jump(struct ra_obj *o, int d)
{
	long r;

	COUNT(n_jump);
	if (d <= 0)
		longjmp(ra_env, 1);
	if (o->kind == 7)
		return d;
	r = ra_jump(o, d - 1);
	o->val ^= r;
	return r + d;
}

/* its exit comes after a 2 ms sleep: the report's time covers it */
__attribute__((noinline)) int ra_sleepy(struct ra_obj *o)
{
	struct timespec ts = {0, 2000000};

	COUNT(n_sleepy);
	if (!o)
		return -1;
	nanosleep(&ts, NULL);
	if (o->kind == 9)
		return 1;
	o->val++;
	return 0;
}

/* a tail call to ra_pick (gcc -O2: jmp ra_pick) */
__attribute__((noinline)) int ra_tail(struct ra_obj *o)
{
	COUNT(n_tail);
	if (!o)
		return -1;
	o->val += 2;
	return ra_pick(o);
}

static struct ra_obj objs[4], tobjs[4];
static volatile long sum; /* the signal handler's, on the main thread */

static void on_usr1(int sig)
{
	(void)sig;
	sum += ra_pick(&objs[1]);
	ra_release(NULL);
}

/* each thread on its own objects: no data race, the same sums every run */
static long work(long n, struct ra_obj *o)
{
	long s = 0, v[8] = {3, 9, 4, 1, -1, 8, 2, 7};

	for (long i = 0; i < n; i++) {
		o[i & 3].refs = 2;
		ra_release(&o[i & 3]);
		s += ra_scan(v, 8);
		s += ra_pick(&o[i & 3]);
		ra_bump(&o[0], 3);
		s += ra_tail(&o[2]);
	}
	return s;
}

static long thread_sum;

static void *thread_main(void *arg)
{
	thread_sum = work((long)arg, tobjs);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int depth = argc > 2 ? atoi(argv[2]) : 50;
	pthread_t th;
	static long s; /* not in a register: longjmp comes back into this frame */

	for (int i = 0; i < 4; i++) {
		objs[i].kind = tobjs[i].kind = i & 1;
		objs[i].next = &objs[(i + 1) & 3];
		tobjs[i].next = &tobjs[(i + 1) & 3];
	}
	signal(SIGUSR1, on_usr1);
	if (pthread_create(&th, NULL, thread_main, (void *)n))
		return 1;
	s += work(n, objs);
	for (int k = 0; k < 10; k++) {
		s += ra_deep(&objs[0], depth);
		/* a signal handler runs probed functions on this thread, inside
		 * a probed function */
		raise(SIGUSR1);
	}
	for (int k = 0; k < 20; k++) {
		if (!setjmp(ra_env))
			s += ra_jump(&objs[0], k);
		else
			jumped += k + 1; /* ra_jump(k) ... ra_jump(0) never returned */
		s += ra_pick(&objs[k & 3]); /* after the jump: exits still right */
	}
	s += ra_sleepy(&objs[0]);
	pthread_join(th, NULL);
	printf("ra_release %ld\nra_scan %ld\nra_pick %ld\nra_bump %ld\nra_deep %ld\n"
	       "ra_jump %ld\nra_sleepy %ld\nra_tail %ld\n",
	       n_release, n_scan, n_pick, n_bump, n_deep, n_jump, n_sleepy, n_tail);
	printf("jumped %ld\nsum %ld\n", jumped, s + sum + thread_sum);
	return 0;
}
