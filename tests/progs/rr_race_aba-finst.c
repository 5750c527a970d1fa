// SPDX-License-Identifier: MIT
/*
 * rr_race_aba-finst.c - the ABA problem of a lock-free stack. Each round
 * pushes C, B, A; thread 1 pops once (reads top A and its next B, then
 * compares and swaps top from A to B), thread 2 pops A, pops B and pushes
 * A back. If thread 2 runs inside thread 1's pop, thread 1's CAS still
 * sees A on top and succeeds, making B - which thread 2 holds - the top
 * again: B is then both on the stack and owned by thread 2. Prints how
 * many of ROUNDS rounds were corrupted; exits 1 if any was. Built with
 * -finstrument-functions (progress points for spool's serial mode).
 *
 * usage: rr_race_aba-finst [ROUNDS]   (default 50)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *next;
	char name;
};

static struct node *top;
static struct node nodes[3];
static struct node *t1_got, *t2_held;

static __attribute__((noinline)) struct node *load_next(struct node *n)
{
	return n->next;
}

static struct node *pop(void)
{
	struct node *old, *next;

	do {
		old = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
		if (!old)
			return NULL;
		next = load_next(old);
	} while (!__atomic_compare_exchange_n(&top, &old, next, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return old;
}

static __attribute__((noinline)) void push(struct node *n)
{
	struct node *old;

	do {
		old = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
		n->next = old;
	} while (!__atomic_compare_exchange_n(&top, &old, n, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
}

static void *one(void *arg)
{
	(void)arg;
	t1_got = pop();
	return NULL;
}

static void *two(void *arg)
{
	struct node *a = pop(), *b = pop();

	(void)arg;
	t2_held = b;
	push(a);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50, bad = 0;

	for (int r = 0; r < rounds; r++) {
		pthread_t x, y;
		struct node *n;
		int held_on_stack = 0;

		top = NULL;
		for (int i = 2; i >= 0; i--) {
			nodes[i].name = (char)('A' + i);
			push(&nodes[i]);
		}
		pthread_create(&x, NULL, one, NULL);
		pthread_create(&y, NULL, two, NULL);
		pthread_join(x, NULL);
		pthread_join(y, NULL);
		for (n = top; n; n = n->next)
			if (n == t2_held || n == t1_got)
				held_on_stack = 1;
		bad += held_on_stack;
	}
	printf("%d of %d rounds corrupted\n", bad, rounds);
	return bad ? 1 : 0;
}
