// SPDX-License-Identifier: MIT
/*
 * rr_stdiofile - stdio's own reads and writes in one process
 * (tests/integ/201-rr-stdio-files.t), which serial mode records and
 * replays like read and write (doc/record.md "Standard I/O inside libc"):
 *
 *   file F    reads F through fopen/fgets/fread, checks ftell against what
 *             it read, then opens it "r+", reads ahead, seeks back and
 *             writes (stdio seeks relative to the kernel's offset, as
 *             binutils' as does with its object file), and prints what it
 *             saw: a replay prints the recorded contents of F whatever F
 *             holds then, and writes the same bytes into it.
 *   threads F 4 threads share one FILE reading F with fgets and one
 *             fully buffered stdout they fprintf to (glibc's FILE lock,
 *             which no interposer sees, is held around the reads and
 *             writes): a serial recording must not stop stuck, and its
 *             replays print the same lines.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *shared;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *worker(void *arg)
{
	long id = (long)arg, n = 0, sum = 0;
	char line[128];

	for (;;) {
		if (!fgets(line, sizeof(line), shared))
			break;
		n++;
		sum += strtol(line, NULL, 10);
		/* a switch point between stdio calls: the threads take turns */
		pthread_mutex_lock(&mu);
		total++;
		pthread_mutex_unlock(&mu);
		fprintf(stdout, "thread %ld got %s", id, line);
	}
	fprintf(stdout, "thread %ld: %ld lines, sum %ld\n", id, n, sum);
	return NULL;
}

static int threads(const char *path)
{
	pthread_t t[4];

	shared = fopen(path, "r");
	if (!shared)
		return 1;
	setvbuf(stdout, NULL, _IOFBF, 1024);
	for (long i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 2;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	fclose(shared);
	printf("total %ld\n", total);
	return 0;
}

static int file(const char *path)
{
	char line[256], buf[64];
	FILE *f = fopen(path, "r");
	long pos;
	size_t k;

	if (!f)
		return 1;
	if (!fgets(line, sizeof(line), f))
		return 2;
	pos = ftell(f);
	k = fread(buf, 1, 10, f);
	printf("first line: %s", line);
	printf("ftell after it: %ld (its length %zu)\n", pos, strlen(line));
	printf("then %zu bytes: %.*s, ftell %ld\n", k, (int)k, buf, ftell(f));
	fclose(f);
	f = fopen(path, "r+");
	if (!f)
		return 3;
	k = fread(buf, 1, 5, f); /* stdio reads ahead a whole buffer */
	if (fseek(f, 0, SEEK_CUR) || fputs("[written]", f) == EOF || fflush(f))
		printf("r+ write failed\n");
	printf("r+: read %zu bytes, wrote at %ld\n", k, ftell(f) - 9);
	if (fseek(f, 0, SEEK_SET) || !fgets(line, sizeof(line), f))
		return 4;
	printf("first line now: %s", line);
	return fclose(f) ? 5 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "file"))
		return file(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "threads"))
		return threads(argv[2]);
	fprintf(stderr, "usage: rr_stdiofile file|threads PATH\n");
	return 2;
}
