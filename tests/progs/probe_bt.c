// SPDX-License-Identifier: MIT
/*
 * probe_bt.c - target of tests/integ/239-probe-retaddr-backtrace.t: a
 * function two calls deep that calls backtrace(3), run with its callers'
 * exits hooked through their return addresses (spool probe --exits
 * retaddr), whose slots then hold the agent's return trampoline. Says
 * whether the walk reached its caller and main (each frame's address
 * inside that function's code), and the depth.
 *
 *   probe_bt          print "mid yes|no", "main yes|no", "frames N"
 *   probe_bt wait F   the same, then write the pid to F and sleep in the
 *                     innermost function until killed (for gdb -p: bt)
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bt_mid(int x, const char *wait);
int main(int argc, char **argv);

/* end of each function: the next one in the file, as GCC lays them out
 * at -O1 (checked: a frame between the two counts) */
static int in_fn(void *pc, void *fn, size_t len)
{
	return (char *)pc > (char *)fn && (char *)pc < (char *)fn + len;
}

__attribute__((noinline)) int bt_leaf(int x, const char *wait)
{
	void *b[64];
	int n = backtrace(b, 64), mid = 0, mn = 0;

	for (int i = 0; i < n; i++) {
		mid |= in_fn(b[i], (void *)bt_mid, 256);
		mn |= in_fn(b[i], (void *)main, 512);
	}
	printf("mid %s\nmain %s\nframes %d\n", mid ? "yes" : "no", mn ? "yes" : "no", n);
	fflush(stdout);
	if (wait) {
		FILE *f = fopen(wait, "w");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
		for (;;)
			pause();
	}
	__asm__ volatile("" ::: "memory");
	return n + x;
}

__attribute__((noinline)) int bt_mid(int x, const char *wait)
{
	int r = bt_leaf(x + 1, wait);

	__asm__ volatile("" ::: "memory");
	return r + 1; /* not a tail call */
}

int main(int argc, char **argv)
{
	const char *wait = argc > 2 && !strcmp(argv[1], "wait") ? argv[2] : NULL;
	int r = bt_mid(argc, wait);

	return r > 0 ? 0 : 1;
}
