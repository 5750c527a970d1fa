// SPDX-License-Identifier: MIT
/*
 * rr_entropy_open.c - two inputs a replay must give back as recorded, found
 * with Debian's ruby (tests/real/142-ruby-all.t):
 *
 * - getentropy(3): glibc's makes the getrandom system call itself, not
 *   through getrandom's symbol; Ruby seeds Random with it, and `p rand`
 *   printed another number in every replay. Printed first, in hex.
 * - the number of a file opened after a snapshot: THREADS threads take a
 *   mutex ROUNDS times (a switch of the run token each, so snapshots fall
 *   among them), then main opens FILE and writes into it; a replay from a
 *   snapshot (--goto) listed the snapshot's own image file, open at the
 *   program's lowest free number while it was written, as a descriptor
 *   of the program, so the open got the next number and the write went to
 *   a descriptor the recording had not used: a divergence.
 *
 * usage: rr_entropy_open [THREADS] [ROUNDS] [FILE]   (4 50 out.txt)
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int rounds;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&m);
		total = total * 3 + id;
		pthread_mutex_unlock(&m);
		sched_yield();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	const char *file = argc > 3 ? argv[3] : "out.txt";
	unsigned char seed[16];
	pthread_t th[64];
	char line[128];
	int fd, n;

	rounds = argc > 2 ? atoi(argv[2]) : 50;
	if (nt < 1 || nt > 64)
		nt = 4;
	if (getentropy(seed, sizeof(seed)) != 0) {
		perror("getentropy");
		return 1;
	}
	printf("entropy ");
	for (size_t i = 0; i < sizeof(seed); i++)
		printf("%02x", seed[i]);
	printf("\n");
	fflush(stdout);
	for (long i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	n = snprintf(line, sizeof(line), "total %ld fd %d\n", total, fd);
	if (write(fd, line, (size_t)n) != n) {
		perror("write");
		return 1;
	}
	close(fd);
	printf("wrote %s on fd %d: total %ld\n", file, fd, total);
	return 0;
}
