// SPDX-License-Identifier: MIT
/*
 * rr_splice_out.c - bytes that reach stdout without passing through the
 * program's memory, and a stdout the program moved, for
 * tests/integ/378-rr-stdout-moves.t.
 *
 * usage: rr_splice_out HOW [FILE]
 *   splice  a thread writes 40 numbered lines into a pipe, 2 ms apart;
 *           main moves them to fd 1 with splice() until the pipe ends
 *           (each splice waits for the writer), then prints the count;
 *   socket  the same through a socketpair, read and written (recv, write);
 *   fopen   prints a line, then `stdout = fopen(FILE, "w")`, prints 5 more;
 *   freopen the same with freopen(FILE, "w", stdout);
 *   dup2    the same with dup2 of a descriptor of FILE over fd 1.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fds[2];

static void *writer(void *arg)
{
	struct timespec ms2 = {0, 2000000};
	char b[80];

	for (int i = 0; i < 40; i++) {
		int n = snprintf(b, sizeof(b), "line %d through the %s\n", i, (const char *)arg);

		if (write(fds[1], b, (size_t)n) != n)
			break;
		nanosleep(&ms2, NULL);
	}
	close(fds[1]);
	return NULL;
}

static int moved(const char *how)
{
	int sock = !strcmp(how, "socket");
	long total = 0;
	pthread_t th;
	ssize_t n;

	if (sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds) : pipe(fds)) {
		perror("pipe");
		return 1;
	}
	printf("moving bytes from a %s to stdout\n", sock ? "socket" : "pipe");
	fflush(stdout);
	pthread_create(&th, NULL, writer, sock ? "socket" : "pipe");
	for (;;) {
		if (sock) {
			char b[100];

			n = recv(fds[0], b, sizeof(b), 0);
			if (n > 0 && write(1, b, (size_t)n) != n)
				n = -1;
		} else {
			n = splice(fds[0], NULL, 1, NULL, 100, 0);
		}
		if (n <= 0)
			break;
		total += n;
	}
	pthread_join(th, NULL);
	printf("%ld bytes moved, the last call returned %zd\n", total, n);
	return 0;
}

static int reassigned(const char *how, const char *file)
{
	printf("before, on the first stdout\n");
	fflush(stdout);
	if (!strcmp(how, "fopen")) {
		stdout = fopen(file, "w");
	} else if (!strcmp(how, "freopen")) {
		if (!freopen(file, "w", stdout))
			return 1;
	} else {
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) != 1)
			return 1;
		close(fd);
	}
	if (!stdout)
		return 1;
	for (int i = 0; i < 5; i++)
		printf("line %d on the new stdout (%s)\n", i, how);
	return fclose(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "splice") || !strcmp(how, "socket"))
		return moved(how);
	if (argc > 2 && (!strcmp(how, "fopen") || !strcmp(how, "freopen") || !strcmp(how, "dup2")))
		return reassigned(how, argv[2]);
	fprintf(stderr, "usage: rr_splice_out splice|socket|fopen|freopen|dup2 [FILE]\n");
	return 2;
}
