// SPDX-License-Identifier: MIT
/*
 * rr_env.c - a program whose path depends on its environment and its
 * working directory: it prints RR_ENV_VAR, its working directory and the
 * first line of rel.txt (opened by a relative path), and a worker thread
 * takes a mutex once per byte of RR_ENV_VAR. A replay run with another
 * environment or from another directory would print other things and, in
 * sync mode, take the mutex a different number of times
 * (tests/integ/55-replay-env.t).
 *
 * usage: rr_env
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static size_t turns;
static int count;

static void *worker(void *arg)
{
	for (size_t i = 0; i < turns; i++) {
		pthread_mutex_lock(&lock);
		count++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

int main(void)
{
	const char *v = getenv("RR_ENV_VAR");
	char cwd[4096], line[64] = "(none)";
	int fd = open("rel.txt", O_RDONLY);
	pthread_t t;

	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "?");
	if (fd >= 0) {
		ssize_t n = read(fd, line, sizeof(line) - 1);

		line[n > 0 ? n : 0] = 0;
		line[strcspn(line, "\n")] = 0;
		close(fd);
	}
	turns = v ? strlen(v) : 0;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("var %s cwd %s rel.txt %s count %d\n", v ? v : "(unset)", cwd, line, count);
	return 0;
}
