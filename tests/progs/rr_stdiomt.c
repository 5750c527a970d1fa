// SPDX-License-Identifier: MIT
/*
 * rr_stdiomt - threads that print to shared stdio streams and to nothing
 * else (tests/integ/258-rr-sync-stdio.t, doc/record.md "Standard I/O
 * inside libc"). glibc's FILE lock, which no interposer sees, decides
 * whose line comes first; in sync mode spool orders each stream like a
 * lock (a turn of the stream), so a replay prints the lines in the
 * recorded order:
 *
 *   mix [N]    4 threads print N lines each (default 300) with fprintf,
 *              fputs, fwrite, putc, puts and printf to stdout (fully
 *              buffered into a file or a pipe: which thread's call
 *              flushes the shared buffer is the lock's choice too) and
 *              with fprintf and fputs to unbuffered stderr;
 *   file [N]   the same with a FILE the program fopens instead of
 *              stdout, read back with fread and copied to stdout at the
 *              end;
 *   bench [N]  4 threads print N lines each to stdout and N/10 to
 *              stderr, fprintf only (the cost of the ordering).
 *
 * The threads meet at a barrier first (so that they print at once) and
 * otherwise only at join: the order of the lines is the FILE lock's
 * order and nothing else.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4

static FILE *out;
static long lines = 300;
static int bench;
static pthread_barrier_t start;

static void *worker(void *arg)
{
	long id = (long)arg;
	char buf[64];

	pthread_barrier_wait(&start);
	for (long i = 0; i < lines; i++) {
		/* a little work between lines, so that the threads' lines
		 * interleave on 2 CPUs */
		for (volatile int k = 0; !bench && k < 100000; k = k + 1)
			;
		if (bench) {
			fprintf(out, "thread %ld line %ld of %ld\n", id, i, lines);
			if (i % 10 == 0)
				fprintf(stderr, "thread %ld says %ld\n", id, i);
			continue;
		}
		switch (i % 6) {
		case 0:
			fprintf(out, "t%ld fprintf %ld\n", id, i);
			break;
		case 1:
			snprintf(buf, sizeof(buf), "t%ld fputs %ld\n", id, i);
			fputs(buf, out);
			break;
		case 2:
			snprintf(buf, sizeof(buf), "t%ld fwrite %ld\n", id, i);
			fwrite(buf, 1, strlen(buf), out);
			break;
		case 3:
			snprintf(buf, sizeof(buf), "t%ld putc %ld", id, i);
			for (char *p = buf; *p; p++)
				putc(*p, out);
			putc('\n', out);
			break;
		case 4:
			if (out == stdout)
				printf("t%ld printf %ld\n", id, i);
			else
				fprintf(out, "t%ld printf %ld\n", id, i);
			break;
		default:
			if (out == stdout) {
				snprintf(buf, sizeof(buf), "t%ld puts %ld", id, i);
				puts(buf);
			} else {
				fprintf(out, "t%ld puts %ld\n", id, i);
			}
		}
		if (i % 3 == 0)
			fprintf(stderr, "t%ld err %ld\n", id, i);
		else if (i % 3 == 1)
			fputs(id & 1 ? "odd thread\n" : "even thread\n", stderr);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	const char *mode = argc > 1 ? argv[1] : "mix";
	char buf[4096];
	size_t n;

	if (argc > 2)
		lines = atol(argv[2]);
	bench = !strcmp(mode, "bench");
	out = stdout;
	if (!strcmp(mode, "file")) {
		out = fopen("rr_stdiomt.out", "w+");
		if (!out) {
			perror("rr_stdiomt.out");
			return 1;
		}
	} else if (!bench && strcmp(mode, "mix")) {
		fprintf(stderr, "usage: rr_stdiomt mix|file|bench [LINES]\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	if (out != stdout) {
		/* the file as the threads left it, read back through stdio */
		rewind(out);
		while ((n = fread(buf, 1, sizeof(buf), out)) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(out);
	}
	printf("done: %d threads, %ld lines each\n", NTHREADS, lines);
	return 0;
}
