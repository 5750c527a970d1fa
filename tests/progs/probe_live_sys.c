// SPDX-License-Identifier: MIT
/*
 * probe_live_sys.c - target of `add sys:io` / `delete sys:io` (and sys:mem)
 * under spool probe -p PID --commands (tests/integ/361-probe-live-sys.t):
 * known I/O and allocations in numbered phases the test starts one by one,
 * so that it can turn the system probes on and off between them.
 *
 *   probe_live_sys DIR PHASES
 *
 * Writes DIR/ready, then for each phase N (1..PHASES) waits for DIR/goN,
 * makes 20 + N write() calls of 10 * N + i bytes to /dev/null and 10 + N
 * rounds of malloc(40 + i), calloc(i + 1, 16), free of the malloc'd block,
 * takes the addresses of write and malloc (its own GOT entries) again,
 * prints
 *   phase N WRITES WBYTES CALLS BYTES FREES LIVE write=orig|other malloc=orig|other
 * (orig: the address from before spool attached) and makes DIR/doneN. Then
 * it waits for DIR/stop and prints "got same|changed" (the addresses after
 * the detach against those from before the attach).
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync_files.h"


/* Each call loads the addresses again (noipa: not folded into one). */
__attribute__((noipa)) static void addrs(void *a[2])
{
	a[0] = (void *)write;
	a[1] = (void *)malloc;
}

int main(int argc, char **argv)
{
	void *before[2], *now[2];
	char buf[512], name[32];
	int phases, fd;

	if (argc < 3)
		return 2;
	sync_dir = argv[1];
	phases = atoi(argv[2]);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (phases < 1 || phases > 20 || fd < 0)
		return 2;
	memset(buf, 'x', sizeof(buf));
	setvbuf(stdout, NULL, _IOLBF, 0);
	addrs(before);
	make_file("ready");
	for (int n = 1; n <= phases; n++) {
		long writes = 0, wbytes = 0, calls = 0, bytes = 0, frees = 0, live = 0;

		snprintf(name, sizeof(name), "go%d", n);
		wait_file(name);
		for (int i = 0; i < 20 + n; i++) {
			ssize_t r = write(fd, buf, (size_t)(10 * n + i));

			writes++;
			wbytes += r > 0 ? r : 0;
		}
		for (int i = 0; i < 10 + n; i++) {
			void *a = malloc(40 + (size_t)i), *b = calloc((size_t)i + 1, 16);

			calls += 2;
			if (a) {
				bytes += 40 + i;
				live += (long)malloc_usable_size(a);
			}
			if (b) {
				bytes += (i + 1) * 16;
				live += (long)malloc_usable_size(b);
			}
			if (a) {
				live -= (long)malloc_usable_size(a);
				frees++;
				free(a);
			}
			/* b is kept: live bytes stay */
		}
		addrs(now);
		printf("phase %d %ld %ld %ld %ld %ld %ld write=%s malloc=%s\n", n, writes, wbytes,
		       calls, bytes, frees, live, now[0] == before[0] ? "orig" : "other",
		       now[1] == before[1] ? "orig" : "other");
		snprintf(name, sizeof(name), "done%d", n);
		make_file(name);
	}
	wait_file("stop");
	addrs(now);
	printf("got %s\n", memcmp(before, now, sizeof(now)) ? "changed" : "same");
	close(fd);
	return 0;
}
