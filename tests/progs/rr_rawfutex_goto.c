// SPDX-License-Identifier: MIT
/*
 * rr_rawfutex_goto - two threads that hand a turn back and forth through
 * futex calls made by their own syscall instruction, as libgomp's barriers
 * do (Debian's GraphicsMagick with OpenMP), for spool replay --goto
 * (tests/integ/401-goto-raw-futex.t). In a replay from a snapshot, a thread
 * the restore recreated must still have syscall user dispatch: its raw
 * FUTEX_WAIT is then a yield of the run token, not a wait in the kernel
 * while it holds the token (the replay was reported stuck).
 *
 *   rr_rawfutex_goto ROUNDS [FILE [linger]]
 *
 * Prints one line per step ("step I by T"). With FILE (not empty), opens it
 * for writing at the start and writes each step there too (write(2)), so a
 * snapshot holds a descriptor open for writing on a file. With linger, the
 * worker is not joined: after its steps it waits on a futex nobody wakes,
 * like libgomp's idle workers, and main exits while it waits
 * (tests/integ/402: main holds the run token at its exit meanwhile).
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "raw_sys.h"

static int rf_turn;
static long rf_rounds = 200;
static int rf_fd = -1, rf_linger, rf_never;

static long rf_futex(int *w, int op, int val)
{
#if defined(__x86_64__)
	return raw_sys(SYS_futex, (long)w, op, val, 0);
#else
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
#endif
}

static void rf_step(long i, int me)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "step %ld by %d\n", i, me);

	fputs(b, stdout);
	fflush(stdout);
	if (rf_fd >= 0 && write(rf_fd, b, (size_t)n) != n)
		exit(2);
}

static void *rf_run(void *arg)
{
	int me = (int)(long)arg;

	for (long i = 0; i < rf_rounds; i++) {
		int v;

		while ((v = __atomic_load_n(&rf_turn, __ATOMIC_ACQUIRE)) != me)
			rf_futex(&rf_turn, FUTEX_WAIT_PRIVATE, v);
		rf_step(i, me);
		__atomic_store_n(&rf_turn, !me, __ATOMIC_RELEASE);
		rf_futex(&rf_turn, FUTEX_WAKE_PRIVATE, 1);
	}
	while (me && rf_linger)
		rf_futex(&rf_never, FUTEX_WAIT_PRIVATE, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		rf_rounds = strtol(argv[1], NULL, 10);
	rf_linger = argc > 3 && !strcmp(argv[3], "linger");
	if (argc > 2 && argv[2][0]) {
		rf_fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (rf_fd < 0) {
			perror(argv[2]);
			return 1;
		}
	}
	if (pthread_create(&t, NULL, rf_run, (void *)1L))
		return 1;
	rf_run((void *)0L);
	if (!rf_linger)
		pthread_join(t, NULL);
	printf("done %ld rounds\n", rf_rounds);
	if (rf_fd >= 0)
		close(rf_fd);
	return 0;
}
