// SPDX-License-Identifier: MIT
/*
 * rr_direct.c - input system calls made through syscall() instead of the
 * named libc wrappers: getrandom, read of a file (argv[1]), clock_gettime.
 * spool record must record them like the named calls (a replay prints the
 * recorded values even after the file changed) and say it saw them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t r = 0;
	struct timespec ts;
	char buf[64] = "";
	long n;
	int fd;

	if (argc < 2)
		return 2;
	if (syscall(SYS_getrandom, &r, sizeof(r), 0) != sizeof(r))
		return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	close(fd);
	syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
	printf("random %016llx\nread %ld [%.*s]\nclock %lld.%09ld\n", (unsigned long long)r, n,
	       (int)(n > 0 ? n : 0), buf, (long long)ts.tv_sec, ts.tv_nsec);
	return 0;
}
