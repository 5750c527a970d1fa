// SPDX-License-Identifier: MIT
// probe_cancel.cpp - target of tests/integ/362-probe-retaddr-cancel.t, built
// by the test with g++ -O2: C++ exceptions and pthread_cancel through frames
// whose return addresses spool swapped (--exits retaddr). cx_catch catches
// what cx_throw throws n frames down (each with a destructor); a thread
// blocked in read() under cx_top and cx_mid (destructors, a catch of
// abi::__forced_unwind that rethrows, a C cleanup handler in cx_leaf) is
// cancelled. Prints "s S catches C dtors D cleanups U forced F"; natively
// every destructor, handler and catch runs and each join gets
// PTHREAD_CANCELED ("not cancelled" otherwise).
//
// usage: probe_cancel [THROWS] [THREADS]  (default 100 3)
#include <cxxabi.h>
#include <pthread.h>
#include <stdexcept>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int dtors, cleanups, catches, forced, pfd[2];

struct guard {
	~guard() { __atomic_fetch_add(&dtors, 1, __ATOMIC_RELAXED); }
};

extern "C" __attribute__((noinline)) void cx_cleanup(void *)
{
	__atomic_fetch_add(&cleanups, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) int cx_leaf(int fd)
{
	char c = 0;

	pthread_cleanup_push(cx_cleanup, nullptr);
	while (read(fd, &c, 1) > 0)
		;
	pthread_cleanup_pop(0);
	return c;
}

__attribute__((noinline)) int cx_mid(int fd)
{
	guard g;
	int r = cx_leaf(fd);

	asm volatile("" ::: "memory");
	return r + 1;
}

__attribute__((noinline)) int cx_top(int fd)
{
	guard g;

	try {
		return cx_mid(fd) + 1;
	} catch (abi::__forced_unwind &) {
		__atomic_fetch_add(&forced, 1, __ATOMIC_RELAXED);
		throw;
	}
}

extern "C" void *cx_thread(void *)
{
	guard g;

	cx_top(pfd[0]);
	return nullptr;
}

__attribute__((noinline)) int cx_throw(int n)
{
	guard g;

	if (n == 0)
		throw std::runtime_error("deep");
	return cx_throw(n - 1) + 1;
}

__attribute__((noinline)) int cx_catch(int n)
{
	try {
		return cx_throw(n);
	} catch (std::exception &) {
		catches++;
		return -1;
	}
}

int main(int argc, char **argv)
{
	int throws = argc > 1 ? atoi(argv[1]) : 100, threads = argc > 2 ? atoi(argv[2]) : 3;
	int s = 0;
	pthread_t t;
	void *ret;

	if (pipe(pfd))
		return 1;
	for (int i = 0; i < throws; i++)
		s += cx_catch(i % 5);
	for (int i = 0; i < threads; i++) {
		if (pthread_create(&t, nullptr, cx_thread, nullptr))
			return 1;
		usleep(10000);
		pthread_cancel(t);
		pthread_join(t, &ret);
		if (ret != PTHREAD_CANCELED)
			printf("not cancelled\n");
	}
	printf("s %d catches %d dtors %d cleanups %d forced %d\n", s, catches, dtors, cleanups,
	       forced);
	return 0;
}
