// SPDX-License-Identifier: MIT
/*
 * fuzz_stream.c - libFuzzer harness of spool receive's side of --stream
 * (src/trace/stream_recv.c): the input is the bytes a board would send
 * (STREAM_MAGIC, then frames), read from a file in the scratch directory
 * and written as files into a directory beside it, as the command does
 * from its connection. A stream that ends early is marked cut, as the
 * command marks it.
 *
 * Not the container format of the trace harnesses (fuzz.h): the wire
 * format is the input. --max-size is 1 MiB here, so no input makes the
 * harness write more than that.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/trace/stream_proto.h"
#include "../src/trace/stream_recv.h"
#include "../src/util/files.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *buf;
	struct stream_recv c = {.dirfd = -1, .max_bytes = 1u << 20};
	char in[PATH_MAX];
	int rc, fd;

	if (!buf && !(buf = malloc(STREAM_MAX_DATA)))
		return 0;
	c.buf = buf;
	snprintf(in, sizeof(in), "%s/stream.in", fuzz_scratch());
	snprintf(c.partial, sizeof(c.partial), "%s/stream.out", fuzz_scratch());
	(void)files_rm_tree(c.partial);
	fd = open(in, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return 0;
	}
	c.sock = fd;
	if (stream_recv_magic(&c) == 0) {
		while ((rc = stream_recv_frame(&c)) == 0)
			;
		if (rc != 1)
			(void)stream_recv_mark_cut(&c);
	}
	if (c.dirfd >= 0)
		close(c.dirfd);
	close(fd);
	return 0;
}
