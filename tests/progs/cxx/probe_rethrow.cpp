// SPDX-License-Identifier: MIT
/*
 * probe_rethrow.cpp - target of tests/integ/196-probe-retaddr-cxx.t: C++
 * exceptions thrown through functions whose exits spool hooks through the
 * return address: caught a few frames up, through frames with destructors
 * (cleanup code, _Unwind_Resume), rethrown, caught and the recursion
 * continued, and one std::terminate-free run to the end. Built by the test
 * with g++ -O2.
 *
 *   probe_rethrow [N]   (default 200)
 *
 * Output: one "name calls" line per probed function, counted by the
 * function itself, then "caught N" and "sum X".
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static long n_leaf, n_mid, n_guard, n_outer, n_deep, caught, dtors;
static volatile long sink;

struct rx_guard {
	long *p;
	explicit rx_guard(long *q) : p(q) {}
	~rx_guard() { ++*p; dtors++; }
};

__attribute__((noinline)) long rx_leaf(long v)
{
	n_leaf++;
	if (v % 7 == 3)
		throw std::runtime_error("seven");
	return v * 2;
}

/* a destructor runs while the exception passes: a cleanup, then _Unwind_Resume */
__attribute__((noinline)) long rx_mid(long v)
{
	static long scratch;
	rx_guard g(&scratch);

	n_mid++;
	return rx_leaf(v) + 1;
}

/* catches, counts, rethrows */
__attribute__((noinline)) long rx_guarded(long v)
{
	n_guard++;
	try {
		return rx_mid(v);
	} catch (const std::runtime_error &) {
		if (v % 2)
			throw;
		return -1;
	}
}

__attribute__((noinline)) long rx_deep(long v, int d)
{
	n_deep++;
	if (d == 0)
		return rx_guarded(v);
	long r = rx_deep(v, d - 1);
	sink ^= r; /* work after the call: no tail recursion made a loop */
	return r + (d & 1);
}

__attribute__((noinline)) long rx_outer(long v)
{
	n_outer++;
	try {
		return rx_deep(v, (int)(v % 5));
	} catch (const std::exception &e) {
		caught++;
		return 100;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200, s = 0;

	for (long i = 0; i < n; i++)
		s += rx_outer(i);
	printf("rx_leaf %ld\nrx_mid %ld\nrx_guarded %ld\nrx_deep %ld\nrx_outer %ld\n", n_leaf,
	       n_mid, n_guard, n_deep, n_outer);
	printf("caught %ld\ndtors %ld\nsum %ld\n", caught, dtors, s);
	return 0;
}
