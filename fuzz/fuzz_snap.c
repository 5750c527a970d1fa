// SPDX-License-Identifier: MIT
/*
 * fuzz_snap.c - libFuzzer harness of the snapshot bodies spool replay --goto
 * reads (src/replay/rr_snap_compose.c, rr_snap_body.c): a chain of bodies
 * (a delta, the ones it is a delta of, a whole one: THREAD, REGION, DELTA,
 * SPARSE, END records) composed into the whole body the agent restores,
 * with holes for its zero pages; and the zstd frame of a snapshot file
 * unpacked without its zero pages.
 *
 * The input is not the trace container of the other harnesses: byte 0 says
 * what to do (bit 0: unpack the rest as a frame whose raw size is the next
 * 4 bytes, little-endian, at most 1 MiB; else compose), and the rest is cut
 * at each "@BODY@" into the bodies of a chain, newest first (4 at most).
 * Bodies come from the input as they are (no zero-page bits: the composing
 * looks at the pages).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../src/replay/rr_snap_body.h"
#include "../src/replay/rr_snap_compose.h"

#define FUZZ_BODIES 4
#define FUZZ_RAW_MAX (1u << 20)
#define SEP "@BODY@"

static void unpack(const uint8_t *data, size_t size)
{
	struct rr_snap_body b;
	uint32_t raw;
	int fd;

	if (size < 4)
		return;
	memcpy(&raw, data, 4);
	fd = memfd_create("fuzz-snap", 0);
	if (fd < 0)
		return;
	if (write(fd, data + 4, size - 4) == (ssize_t)(size - 4) &&
	    rr_snap_body_unpack(fd, 0, raw, FUZZ_RAW_MAX, &b) == 0) {
		int out = memfd_create("fuzz-snap-out", 0);
		uint64_t n = 0;

		if (out >= 0) {
			rr_snap_compose_bodies(&b, 1, out, &n);
			close(out);
		}
		rr_snap_body_free(&b);
	}
	close(fd);
}

static void compose(const uint8_t *data, size_t size)
{
	struct rr_snap_body bodies[FUZZ_BODIES];
	uint32_t n = 0;
	size_t at = 0;
	int out;
	uint64_t total = 0;

	memset(bodies, 0, sizeof(bodies));
	while (n < FUZZ_BODIES) {
		const uint8_t *p = memmem(data + at, size - at, SEP, strlen(SEP));
		size_t end = p ? (size_t)(p - data) : size;

		/* a copy of its own: a read past it is the sanitizer's */
		bodies[n].size = end - at;
		bodies[n].b = malloc(bodies[n].size ? bodies[n].size : 1);
		if (!bodies[n].b)
			break;
		memcpy(bodies[n].b, data + at, bodies[n].size);
		n++;
		if (!p)
			break;
		at = end + strlen(SEP);
	}
	out = memfd_create("fuzz-snap-out", 0);
	if (out >= 0 && n) {
		rr_snap_compose_bodies(bodies, n, out, &total);
		close(out);
	} else if (out >= 0) {
		close(out);
	}
	for (uint32_t k = 0; k < n; k++)
		free(bodies[k].b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		unpack(data + 1, size - 1);
	else
		compose(data + 1, size - 1);
	return 0;
}
