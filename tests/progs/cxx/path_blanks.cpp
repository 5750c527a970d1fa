// SPDX-License-Identifier: MIT
// path_blanks.cpp - locks whose names hold blanks in spool path's object
// column (tests/integ/340-path-object-blanks.t): a std::mutex of an
// anonymous namespace ("lock:(anonymous namespace)::mtx") and a static
// member of a class template ("lock:Acc<int, char>::m"). Two threads call
// add() N times each, which takes both; prints the total. Built with g++
// -finstrument-functions by the test.
//
// usage: path_blanks [N]  (default 3)
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace {
std::mutex mtx;
long total;
} // namespace

template <typename A, typename B> struct Acc {
	static std::mutex m;
	static long n;
};
template <typename A, typename B> std::mutex Acc<A, B>::m;
template <typename A, typename B> long Acc<A, B>::n;

__attribute__((noinline)) void add(int v)
{
	std::lock_guard<std::mutex> g(mtx);
	total += v;
	std::lock_guard<std::mutex> h(Acc<int, char>::m);
	Acc<int, char>::n++;
}

static void worker(int n)
{
	for (int i = 0; i < n; i++)
		add(i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	std::thread a(worker, n), b(worker, n);

	a.join();
	b.join();
	printf("total %ld adds %ld\n", total, Acc<int, char>::n);
	return 0;
}
