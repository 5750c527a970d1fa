// SPDX-License-Identifier: MIT
// probe_blanks.cpp - C++ names that hold blanks, as the vars side file
// must keep them in one column (tests/integ/338-probe-vars-cxx-blanks.t):
// a variable of an anonymous namespace ("(anonymous namespace)::count",
// as nm -C and c++filt write it), a static member of a class template
// ("Pair<int, char>::hits") and a method of a class template
// ("Box<int, char>::put(int)"). work(n) is called 3 times with n: after
// call k, count is k*n and Pair<int, char>::hits is k.
//
// usage: probe_blanks [N]  (default 5)
#include <cstdio>
#include <cstdlib>

namespace {
int count = 0;
}

template <typename A, typename B> struct Pair {
	static int hits;
};
template <typename A, typename B> int Pair<A, B>::hits = 0;

template <typename A, typename B> struct Box {
	A sum = 0;
	__attribute__((noinline)) void put(A v) { sum += v; }
};

__attribute__((noinline)) int work(int n)
{
	Box<int, char> b;

	for (int i = 0; i < n; i++)
		b.put(i);
	count += n;
	Pair<int, char>::hits++;
	return b.sum;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, s = 0;

	for (int i = 0; i < 3; i++)
		s += work(n);
	printf("sum %d count %d hits %d\n", s, count, Pair<int, char>::hits);
	return 0;
}
