// SPDX-License-Identifier: MIT
/*
 * probe_jumps.c - target of tests/integ/192-probe-jumps.t: gotos, breaks,
 * continues, returns and labels, each counted by the program itself, and
 * a block a callee sometimes leaves by longjmp. A jump statement stands on
 * its own line with its counter, marked J:NAME (the ret: on the closing
 * brace, where -O0 puts it); a label's first statement
 * is its counter, marked L:NAME (the label's name); the program prints
 * "NAME COUNT" for each, so the test compares the passes spool counted at
 * the jump: and label: points of each marked line.
 *
 * step() calls maybe(), which longjmps out every fourth call: its block
 * is entered "calls" times and left "done" times (block-exit:).
 *
 * usage: probe_jumps [N]   (N rounds, default 10)
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_goto_again1, n_goto_again2, n_goto_done, n_break, n_continue, n_ret,
	n_again, n_done, n_work;
static unsigned long n_step, n_stepdone, n_jumped;
static jmp_buf jb;

__attribute__((noinline)) int work(int n)
{
	int s = 0, i = 0;

	n_work++;
again:
	n_again++; /* L:again */
	if (i >= n) {
		n_goto_done++; goto done; /* J:goto_done */
	}
	if (i % 3 == 0) {
		i++;
		n_goto_again1++; goto again; /* J:goto_again1 */
	}
	for (int k = 0; k < i; k++) {
		if (k == 5) {
			n_break++; break; /* J:break */
		}
		if (k & 1) {
			n_continue++; continue; /* J:continue */
		}
		s += k;
	}
	i++;
	n_goto_again2++; goto again; /* J:goto_again2 */
done:
	n_done++; /* L:done */
	n_ret++;
	return s;
} /* J:ret */

__attribute__((noinline)) void maybe(int i)
{
	if (i % 4 == 0)
		longjmp(jb, 1);
}

__attribute__((noinline)) void step(int i)
{
	n_step++;
	maybe(i);
	n_stepdone++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	volatile int i;
	volatile long t = 0;

	for (int r = 0; r < 3; r++)
		t += work(n + r);
	for (i = 0; i < n; i++)
		if (setjmp(jb))
			n_jumped++;
		else
			step(i);
	printf("goto_again1 %lu\ngoto_again2 %lu\ngoto_done %lu\nbreak %lu\ncontinue %lu\n"
	       "ret %lu\nagain %lu\ndone %lu\nwork %lu\nstep %lu\nstepdone %lu\njumped %lu\n"
	       "sum %ld\n",
	       n_goto_again1, n_goto_again2, n_goto_done, n_break, n_continue, n_ret, n_again,
	       n_done, n_work, n_step, n_stepdone, n_jumped, t);
	return 0;
}
