// SPDX-License-Identifier: MIT
/*
 * rr_socksend.c - one thread sends on a socketpair faster than another
 * reads it: 64 KiB at a time (send, sendto and sendmsg in turn), much more
 * than the socket buffer holds, while the reader takes 1000 bytes per recv.
 * Under spool's serial mode the sender blocks in the kernel with a full
 * buffer; it must give the run token up there, or the reader never runs.
 * Prints the bytes received and a checksum of them (the same every run).
 *
 * usage: rr_socksend [KIB]   (default 2048: 2 MiB)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK 65536

static int sv[2];
static long total;

static void *sender(void *arg)
{
	static char buf[CHUNK];
	long left = total;
	int k = 0;

	(void)arg;
	while (left > 0) {
		size_t n = left < CHUNK ? (size_t)left : CHUNK;
		ssize_t w;

		for (size_t i = 0; i < n; i++)
			buf[i] = (char)((total - left + (long)i) * 7 + 3);
		if (k % 3 == 0) {
			w = send(sv[0], buf, n, 0);
		} else if (k % 3 == 1) {
			w = sendto(sv[0], buf, n, 0, NULL, 0);
		} else {
			struct iovec v[2] = {{buf, n / 2}, {buf + n / 2, n - n / 2}};
			struct msghdr m = {.msg_iov = v, .msg_iovlen = 2};

			w = sendmsg(sv[0], &m, 0);
		}
		if (w <= 0) {
			perror("send");
			exit(3);
		}
		left -= w;
		k++;
	}
	shutdown(sv[0], SHUT_WR);
	return NULL;
}

int main(int argc, char **argv)
{
	long kib = argc > 1 ? atol(argv[1]) : 2048;
	unsigned long sum = 14695981039346656037ul, got = 0; /* FNV-1a */
	pthread_t th;
	char buf[1000];
	ssize_t r;

	if (kib <= 0)
		return 2;
	total = kib * 1024;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("socketpair");
		return 2;
	}
	pthread_create(&th, NULL, sender, NULL);
	while ((r = recv(sv[1], buf, sizeof(buf), 0)) > 0) {
		for (ssize_t i = 0; i < r; i++)
			sum = (sum ^ (unsigned char)buf[i]) * 1099511628211ul;
		got += (unsigned long)r;
	}
	pthread_join(th, NULL);
	printf("received %lu of %ld bytes, sum %016lx\n", got, total, sum);
	return got == (unsigned long)total ? 0 : 1;
}
