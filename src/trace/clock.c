// SPDX-License-Identifier: MIT
/*
 * clock.c - the trace clock: calibrating the TSC against CLOCK_MONOTONIC and
 * converting TSC values to nanoseconds (doc/trace-format.md, "Clock").
 */
#include <errno.h>
#include <time.h>

#include "../arch/arch.h"
#include "trace.h"

static uint64_t clock_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(ARCH_NAME)
/*
 * One (tsc, monotonic, realtime) sample. The TSC is read between two
 * monotonic reads and paired with their midpoint; of a few tries the one with
 * the narrowest window wins, which filters out preemption and vDSO retries.
 */
static void clock_sample(uint64_t *tsc, uint64_t *mono, uint64_t *real)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t r0 = clock_now(CLOCK_REALTIME);
		uint64_t m0 = clock_now(CLOCK_MONOTONIC);
		uint64_t t = arch_ts(); /* TSC or CNTVCT_EL0 (arch.h) */
		uint64_t m1 = clock_now(CLOCK_MONOTONIC);
		uint64_t r1 = clock_now(CLOCK_REALTIME);

		if (m1 - m0 < best) {
			best = m1 - m0;
			*tsc = t;
			*mono = m0 + (m1 - m0) / 2;
			*real = r0 + (r1 - r0) / 2;
		}
	}
}

int trace_clock_calibrate(struct trace_clock *clk, unsigned us)
{
	uint64_t t0, m0, r0, t1, m1, r1;
	struct timespec d;

	if (us < 100)
		us = 100;
	clock_sample(&t0, &m0, &r0);
	d.tv_sec = us / 1000000;
	d.tv_nsec = (long)(us % 1000000) * 1000L;
	while (nanosleep(&d, &d) < 0 && errno == EINTR)
		;
	clock_sample(&t1, &m1, &r1);
	if (m1 <= m0 || t1 <= t0)
		return -EIO;
	clk->tsc_hz = (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000u / (m1 - m0));
	if (clk->tsc_hz == 0)
		return -EIO;
	clk->tsc0 = t0;
	clk->mono_ns = m0;
	clk->real_ns = r0;
	return 0;
}

/*
 * A session calibrates over 0.2 ms at its start (a 10 ms sleep there was a
 * third of the fixed cost of recording /bin/true) and refines the frequency
 * over the whole run at its end, when the trace's metadata is written
 * again. The two samples are each good to about a microsecond, so a
 * frequency measured between them puts at most that error on any
 * timestamp in between, however short the run: the floor min_us (topped
 * up with a sleep) only keeps the division away from noise.
 */
int trace_clock_refine(struct trace_clock *clk, unsigned min_us)
{
	uint64_t t1, m1, r1, min_ns = (uint64_t)min_us * 1000u;

	clock_sample(&t1, &m1, &r1);
	if (m1 > clk->mono_ns && m1 - clk->mono_ns < min_ns) {
		uint64_t left = min_ns - (m1 - clk->mono_ns);
		struct timespec d = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};

		while (nanosleep(&d, &d) < 0 && errno == EINTR)
			;
		clock_sample(&t1, &m1, &r1);
	}
	if (m1 <= clk->mono_ns || t1 <= clk->tsc0)
		return -EIO;
	clk->tsc_hz = (uint64_t)((unsigned __int128)(t1 - clk->tsc0) * 1000000000u /
				 (m1 - clk->mono_ns));
	return clk->tsc_hz ? 0 : -EIO;
}
#else
int trace_clock_calibrate(struct trace_clock *clk, unsigned ms)
{
	(void)clk;
	(void)ms;
	return -ENOTSUP;
}

int trace_clock_refine(struct trace_clock *clk, unsigned min_ms)
{
	(void)clk;
	(void)min_ms;
	return -ENOTSUP;
}
#endif

uint64_t trace_clock_ns(const struct trace_clock *clk, uint64_t tsc)
{
	unsigned __int128 d;

	if (!clk->tsc_hz)
		return clk->mono_ns;
	/* 128-bit product: (tsc - tsc0) * 1e9 overflows 64 bits after ~8 s at 2 GHz. */
	if (tsc >= clk->tsc0) {
		d = (unsigned __int128)(tsc - clk->tsc0) * 1000000000u / clk->tsc_hz;
		return clk->mono_ns + (uint64_t)d;
	}
	d = (unsigned __int128)(clk->tsc0 - tsc) * 1000000000u / clk->tsc_hz;
	return d > clk->mono_ns ? 0 : clk->mono_ns - (uint64_t)d;
}
