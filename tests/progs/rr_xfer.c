// SPDX-License-Identifier: MIT
/*
 * rr_xfer - what a program sees of the bytes sendfile, splice, tee and
 * copy_file_range move (tests/integ/285-rr-xfer.t, doc/record.md
 * "sendfile, splice"):
 *
 *   stdin          splice stdin (a pipe) to stdout until its end, then
 *                  print how many bytes moved;
 *   file FILE      splice FILE into a pipe of its own, tee that pipe into
 *                  a second one, read both back and print their counts
 *                  and checksums; copy_file_range FILE to rr_xfer.copy,
 *                  read the copy back (checksum); sendfile FILE to stdout.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

static unsigned long sum_of(const char *b, long n, unsigned long s)
{
	for (long i = 0; i < n; i++)
		s = s * 31 + (unsigned char)b[i];
	return s;
}

static int from_stdin(void)
{
	long total = 0;
	ssize_t k;

	while ((k = splice(0, NULL, 1, NULL, 65536, 0)) > 0)
		total += k;
	if (k < 0) {
		perror("splice");
		return 1;
	}
	fprintf(stderr, "spliced %ld bytes\n", total);
	return 0;
}

static int from_file(const char *path)
{
	int a[2], b[2], in = open(path, O_RDONLY), cp;
	char buf[8192];
	long n1 = 0, n2 = 0, nc = 0;
	unsigned long s1 = 0, s2 = 0, sc = 0;
	ssize_t k, t;
	loff_t off = 0;

	if (in < 0 || pipe(a) || pipe(b))
		return 1;
	/* at most a pipe's worth at a time: splice in, tee out, read both */
	while ((k = splice(in, &off, a[1], NULL, 4096, 0)) > 0) {
		t = tee(a[0], b[1], (size_t)k, 0);
		printf("splice %zd tee %zd\n", k, t);
		for (ssize_t got = 0, r; got < k; got += r) {
			if ((r = read(a[0], buf, sizeof(buf))) <= 0)
				return 1;
			n1 += r, s1 = sum_of(buf, r, s1);
		}
		for (ssize_t got = 0, r; got < t; got += r) {
			if ((r = read(b[0], buf, sizeof(buf))) <= 0)
				return 1;
			n2 += r, s2 = sum_of(buf, r, s2);
		}
	}
	printf("pipe: %ld bytes sum %lx, tee'd: %ld bytes sum %lx, offset %lld\n", n1, s1, n2, s2,
	       (long long)off);
	cp = open("rr_xfer.copy", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (cp < 0)
		return 1;
	off = 0;
	while ((k = copy_file_range(in, &off, cp, NULL, 5000, 0)) > 0)
		printf("copy_file_range %zd\n", k);
	lseek(cp, 0, SEEK_SET);
	while ((k = read(cp, buf, sizeof(buf))) > 0)
		nc += k, sc = sum_of(buf, k, sc);
	printf("copy: %ld bytes sum %lx\n", nc, sc);
	fflush(stdout);
	off = 0;
	k = sendfile(1, in, &off, 1 << 20);
	printf("\nsendfile %zd\n", k);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "stdin"))
		return from_stdin();
	if (argc > 2 && !strcmp(argv[1], "file"))
		return from_file(argv[2]);
	fprintf(stderr, "usage: rr_xfer stdin | file FILE\n");
	return 2;
}
