// SPDX-License-Identifier: MIT
// bank.cpp - a small C++ program for the C++-name tests (tests/integ/160-*):
// std::thread workers move money between accounts of a Bank, each transfer
// under the global std::mutex acct (a static: mangled _ZL4acct) and the
// accounts' own mutexes taken with std::lock. Built with g++ by the test.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex acct;
static long audit_count;

struct Account {
	std::mutex m;
	long balance = 1000;
};

class Bank {
public:
	explicit Bank(int n) : accounts(n) {}
	void transfer(int from, int to, long amount);
	long total();

private:
	std::vector<Account> accounts;
};

__attribute__((noinline)) void Bank::transfer(int from, int to, long amount)
{
	if (from == to)
		return;
	std::lock(accounts[from].m, accounts[to].m);
	std::lock_guard<std::mutex> a(accounts[from].m, std::adopt_lock);
	std::lock_guard<std::mutex> b(accounts[to].m, std::adopt_lock);
	accounts[from].balance -= amount;
	accounts[to].balance += amount;
	std::lock_guard<std::mutex> g(acct);
	audit_count++;
}

long Bank::total()
{
	long t = 0;

	for (auto &a : accounts) {
		std::lock_guard<std::mutex> g(a.m);
		t += a.balance;
	}
	return t;
}

// A free function with a C++ name: _Z8transferiil.
__attribute__((noinline)) long transfer(int from, int to, long amount)
{
	std::lock_guard<std::mutex> g(acct);
	return from + to + amount;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4, iters = argc > 2 ? atoi(argv[2]) : 2000;
	Bank bank(8);
	std::vector<std::thread> ts;
	long sum = 0;

	for (int t = 0; t < nthreads; t++)
		ts.emplace_back([&bank, t, iters] {
			for (int i = 0; i < iters; i++)
				bank.transfer((i + t) % 8, (i * 3 + t + 1) % 8, 1);
		});
	for (auto &t : ts)
		t.join();
	for (int i = 0; i < 10; i++)
		sum += transfer(i, i + 1, 2);
	printf("total %ld audits %ld sum %ld\n", bank.total(), audit_count, sum);
	return bank.total() == 8000 ? 0 : 1;
}
