// SPDX-License-Identifier: MIT
/*
 * early_clock.h - the text of the clock reads a program made before the
 * agent started (a library constructor's malloc: jemalloc reads
 * CLOCK_MONOTONIC_COARSE when it sets itself up): the host keeps it in
 * .spool/record (early_clock=) and reads it back for a replay, which gives
 * the readings to the agent through the shared memory (agent_rr_early.c).
 *
 * Text: "CLK:NS" readings separated by commas, CLK the clock id and NS the
 * reading in nanoseconds, both decimal, at most EARLY_CLOCK_MAX of them.
 * The text comes from a trace: hostile input, every
 * number is bounds-checked and a malformed reading ends the list.
 */
#ifndef SPOOL_COMMON_EARLY_CLOCK_H
#define SPOOL_COMMON_EARLY_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define EARLY_CLOCK_MAX 4
#define EARLY_CLOCK_ENV "SPOOL_EARLY_CLOCK"
/* The offset in the shared memory of the early reads a replay gives back
 * (struct rr_early_io, agent_rr_early.c) */
#define EARLY_IO_ENV "SPOOL_EARLY_IO"
/*
 * Its value has EARLY_IO_WIDTH characters in a recording and in its replay
 * alike: the offset, zero-padded, or EARLY_IO_KEEP (record: keep the
 * early calls; a replay with nothing to give). The agent removes the
 * variable when it starts, so the program's environment holds one entry
 * fewer than its stack had in both runs: spool's stack padding
 * (session.c) then leaves the recorded SPOOL_PAD= and SPOOL_SHM_PATH in
 * the replay as they were. (Before, only the replay had the variable, in
 * place of the recording's SPOOL_PAD=: the program saw one variable
 * fewer and a longer SPOOL_SHM_PATH, and redis-server, which copies its
 * environment for setproctitle, made other allocations, so jemalloc's
 * decay ticker fired elsewhere and the sync replay diverged at a trylock.)
 */
#define EARLY_IO_WIDTH 20
#define EARLY_IO_KEEP "--------------------"
/* 4 readings of "-2147483648:18446744073709551615," and the NUL */
#define EARLY_CLOCK_TEXT (EARLY_CLOCK_MAX * 33 + 1)

/* Parse s into clk[]/ns[] (room for EARLY_CLOCK_MAX): the readings read. */
static inline uint32_t early_clock_parse(const char *s, int32_t *clk, uint64_t *ns)
{
	uint32_t n = 0;

	while (s && *s && n < EARLY_CLOCK_MAX) {
		int neg = 0, digits = 0;
		int64_t c = 0;
		uint64_t v = 0;

		if (*s == '-') {
			neg = 1;
			s++;
		}
		for (; *s >= '0' && *s <= '9' && c <= 0x7fffffff; s++, digits++)
			c = c * 10 + (*s - '0');
		if (!digits || c > 0x7fffffff || *s != ':')
			break;
		s++;
		for (digits = 0; *s >= '0' && *s <= '9'; s++, digits++) {
			if (v > (UINT64_MAX - 9) / 10)
				return n; /* overflow: a malformed reading */
			v = v * 10 + (uint64_t)(*s - '0');
		}
		if (!digits || (*s && *s != ','))
			break;
		clk[n] = (int32_t)(neg ? -c : c);
		ns[n] = v;
		n++;
		if (*s == ',')
			s++;
	}
	return n;
}

/* Format n readings into buf (size >= EARLY_CLOCK_TEXT gives room for all). */
static inline void early_clock_format(uint32_t n, const int32_t *clk, const uint64_t *ns,
				      char *buf, size_t size)
{
	size_t k = 0;

	if (!size)
		return;
	for (uint32_t i = 0; i < n && i < EARLY_CLOCK_MAX; i++) {
		char tmp[32];
		size_t t = sizeof(tmp);
		uint64_t v = ns[i];
		int64_t c = clk[i];
		int neg = c < 0;

		do {
			tmp[--t] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		tmp[--t] = ':';
		if (neg)
			c = -c;
		do {
			tmp[--t] = (char)('0' + c % 10);
			c /= 10;
		} while (c);
		if (neg)
			tmp[--t] = '-';
		if (i && k + 1 < size)
			buf[k++] = ',';
		for (; t < sizeof(tmp) && k + 1 < size; t++)
			buf[k++] = tmp[t];
	}
	buf[k] = 0;
}

#endif
