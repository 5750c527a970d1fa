// SPDX-License-Identifier: MIT
/*
 * pktcheck.c - the collector's per-packet check (trace_pkt2_check) timed
 * on the packets of a real format 2 stream file: what checking the events
 * of a ring packet costs the collector per event (bench/pktcheck.sh builds
 * and runs it; nothing asserted).
 *
 * usage: pktcheck STREAM_FILE [ROUNDS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/trace.h"
#include "trace/trace_int.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	uint64_t nev = 0, npkt = 0, bytes = 0;
	size_t len = 0, cap = 1 << 20, n;
	uint8_t *buf = malloc(cap), *copy;
	double t0, best = 1e9;
	FILE *f;

	if (argc < 2 || !buf) {
		fprintf(stderr, "usage: pktcheck STREAM_FILE [ROUNDS]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap && !(buf = realloc(buf, cap *= 2)))
			return 1;
	}
	fclose(f);
	copy = malloc(1 << 20);
	if (!copy)
		return 1;
	for (int r = 0; r < rounds; r++) {
		double t;

		nev = npkt = bytes = 0;
		t0 = now();
		for (size_t off = 0; off + TRACE_PKT_HDR_SIZE2 <= len;) {
			size_t plen = (size_t)(trace_get64(buf + off + TRACE_PC_CONTENT) / 8);
			struct trace_pkt2_counts c;
			const char *why;

			if (plen < TRACE_PKT_HDR_SIZE2 || plen > (1 << 20) || off + plen > len)
				break;
			/* the collector checks its own copy of the slot */
			memcpy(copy, buf + off, plen);
			if (trace_pkt2_check(copy, plen, 0, &c, &why) < 0) {
				fprintf(stderr, "packet at %zu: %s\n", off, why);
				return 1;
			}
			nev += trace_get32(copy + TRACE_PC_EVENTS);
			npkt++;
			bytes += plen;
			off += plen;
		}
		t = now() - t0;
		if (t < best)
			best = t;
	}
	t0 = now();
	for (int r = 0; r < rounds; r++)
		for (size_t off = 0; off + TRACE_PKT_HDR_SIZE2 <= len;) {
			size_t plen = (size_t)(trace_get64(buf + off + TRACE_PC_CONTENT) / 8);

			if (plen < TRACE_PKT_HDR_SIZE2 || plen > (1 << 20) || off + plen > len)
				break;
			memcpy(copy, buf + off, plen);
			off += plen;
		}
	printf("%llu packets, %llu events, %llu bytes: check + copy best %.3f ms, %.2f ns/event "
	       "(copy alone %.2f ns/event, mean)\n",
	       (unsigned long long)npkt, (unsigned long long)nev, (unsigned long long)bytes,
	       best * 1e3, best * 1e9 / (nev ? nev : 1),
	       (now() - t0) * 1e9 / rounds / (nev ? nev : 1));
	return 0;
}
