// SPDX-License-Identifier: MIT
// live_bank.cpp - a C++ program to attach to (tests/integ/294-*): it calls
// Bank::transfer (mangled _ZN4Bank8transferEiil) every millisecond until
// its stop file (argv[1]) exists, then prints "done 1". Built with g++ by
// the test.
#include <cstdio>
#include <mutex>
#include <unistd.h>
struct Bank {
	std::mutex m;
	long bal[2] = {0, 0};
	void transfer(int from, int to, long amount);
};
__attribute__((noinline)) void Bank::transfer(int from, int to, long amount)
{
	std::lock_guard<std::mutex> g(m);
	bal[from] -= amount;
	bal[to] += amount;
}
int main(int argc, char **argv)
{
	static Bank b;
	std::printf("ready\n");
	std::fflush(stdout);
	while (argc > 1 && access(argv[1], F_OK))
		b.transfer(0, 1, 1), usleep(1000);
	std::printf("done %d\n", b.bal[1] > 0);
	return 0;
}
