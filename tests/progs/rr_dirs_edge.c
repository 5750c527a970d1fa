// SPDX-License-Identifier: MIT
/*
 * rr_dirs_edge.c - the edges of replaying directory contents and names
 * (src/agent/agent_rr_dir.c, agent_rr_path.c, agent_rr_fs.c): more
 * directory streams open at once than the agent has entry buffers for
 * (70, read in turns), a file opened, read and fstat'ed that a replay may
 * not find any more, a name that did not exist when recorded, a link read
 * into a buffer of BUFSZ bytes (a replay with a smaller one cannot hold
 * the recorded target), and getcwd into a buffer too small for any name.
 *
 * usage: rr_dirs_edge DIR BUFSZ (DIR holds a file named data and a link
 * named lnk)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NSTREAMS 70

int main(int argc, char **argv)
{
	char path[PATH_MAX], buf[PATH_MAX], data[64];
	DIR *d[NSTREAMS];
	struct stat st;
	size_t bufsz;
	ssize_t n;
	int i, round, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: rr_dirs_edge DIR BUFSZ\n");
		return 2;
	}
	bufsz = (size_t)atoi(argv[2]);
	if (bufsz < 1 || bufsz > sizeof(buf))
		bufsz = sizeof(buf);

	for (i = 0; i < NSTREAMS; i++) {
		d[i] = opendir(argv[1]);
		if (!d[i]) {
			printf("opendir %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	/* Stream i starts i % 3 entries in; each stream's entry is used after
	 * the other streams were read (each must have a buffer of its own). */
	for (i = 0; i < NSTREAMS; i++)
		for (round = 0; round < i % 3; round++)
			readdir(d[i]);
	for (round = 0; round < 3; round++) {
		struct dirent *got[NSTREAMS];

		for (i = 0; i < NSTREAMS; i++)
			got[i] = readdir(d[i]);
		for (i = 0; i < NSTREAMS; i++)
			if (i % 23 == 0 || i >= NSTREAMS - 6)
				printf("round %d stream %d: %s\n", round, i,
				       got[i] ? got[i]->d_name : "(end)");
	}
	for (i = 0; i < NSTREAMS; i++)
		closedir(d[i]);

	snprintf(path, sizeof(path), "%s/data", argv[1]);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("open data: %s\n", strerror(errno));
	} else {
		n = read(fd, data, sizeof(data) - 1);
		data[n > 0 ? n : 0] = 0;
		if (fstat(fd, &st) == 0)
			printf("data: %lld bytes, fd %d: %s", (long long)st.st_size, fd, data);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/absent", argv[1]);
	fd = open(path, O_RDONLY);
	printf("open absent: %s\n", fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0)
		close(fd);

	snprintf(path, sizeof(path), "%s/lnk", argv[1]);
	n = readlink(path, buf, bufsz);
	if (n < 0)
		printf("readlink: %s\n", strerror(errno));
	else
		printf("readlink: %.*s\n", (int)n, buf);
	printf("getcwd into 2 bytes: %s\n", getcwd(buf, 2) ? "fits" : strerror(errno));
	return 0;
}
