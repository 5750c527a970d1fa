// SPDX-License-Identifier: MIT
// probe_ns.cpp - C++ names in var:, assert: and time: specs
// (tests/integ/251-probe-cxx-vars.t): a method of a class in a namespace
// (ledger::Book::add), a namespace variable (ledger::posted), a static
// member (ledger::Book::entries) and two overloads (ledger::scale(long),
// ledger::scale(double)). add(i + 1) is called N times: after call k,
// entries is k and posted k(k+1)/2. Built with g++ -g -O0 by the test.
//
// usage: probe_ns [N]  (default 10)
#include <cstdio>
#include <cstdlib>

namespace ledger {
long posted;

struct Book {
	static long entries;
	long total = 0;
	long add(long amount);
};

long Book::entries;

__attribute__((noinline)) long Book::add(long amount)
{
	total += amount;
	entries++;
	posted += amount;
	return total;
}

__attribute__((noinline)) long scale(long v)
{
	return v * 2;
}

__attribute__((noinline)) double scale(double v)
{
	return v * 0.5;
}
} // namespace ledger

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	ledger::Book b;
	long s = 0;
	double d = 0;

	for (int i = 0; i < n; i++) {
		s += b.add(i + 1);
		s += ledger::scale((long)i);
		d += ledger::scale((double)i);
	}
	printf("total %ld entries %ld posted %ld s %ld d %.1f\n", b.total, ledger::Book::entries,
	       ledger::posted, s, d);
	return 0;
}
