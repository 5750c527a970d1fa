// SPDX-License-Identifier: MIT
/*
 * rr_mmapcat - print a file read through mmap, with write and with writev
 * (tests/integ/372-rr-output-check.t). A read through mmap is not a call
 * spool records: a replay after the file changed computes other bytes with
 * the same calls, which the replay's check of what each write wrote must
 * stop as a divergence, not print with status 0.
 *
 * usage: rr_mmapcat FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	struct iovec v[3];
	const char *p;
	int fd;

	if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) || st.st_size < 2)
		return 2;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	if (write(1, "first line is constant\n", 23) != 23)
		return 1;
	/* the file in two pieces, and a line around them, in one writev */
	v[0].iov_base = (void *)"file: ";
	v[0].iov_len = 6;
	v[1].iov_base = (void *)p;
	v[1].iov_len = (size_t)st.st_size / 2;
	v[2].iov_base = (void *)(p + st.st_size / 2);
	v[2].iov_len = (size_t)st.st_size - (size_t)st.st_size / 2;
	if (writev(1, v, 3) != 6 + st.st_size)
		return 1;
	if (write(1, p, (size_t)st.st_size) != st.st_size)
		return 1;
	return 0;
}
