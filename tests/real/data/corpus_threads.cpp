// SPDX-License-Identifier: MIT
// corpus_threads.cpp - a C++ program as people write them, for the
// record/replay corpus (tests/real/quick/80-cxx-sqlite-corpus.t,
// tests/real/91-cxx-threads.t): std::thread workers sharing a std::mutex
// protected total, a std::shared_mutex read-mostly table, and a
// condition_variable work queue; it prints the totals and writes a result
// file. Built with the system g++ by the test (not by make: g++ is a test
// dependency only).
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? std::atoi(argv[1]) : 4;
	int items = argc > 2 ? std::atoi(argv[2]) : 2000;
	std::mutex mu;
	std::condition_variable cv;
	std::deque<int> queue;
	bool done = false;
	long total = 0;
	std::shared_mutex table_mu;
	std::map<int, int> table;

	std::vector<std::thread> workers;
	for (int t = 0; t < nthreads; t++)
		workers.emplace_back([&, t] {
			for (;;) {
				int v;
				{
					std::unique_lock<std::mutex> lk(mu);
					cv.wait(lk, [&] { return done || !queue.empty(); });
					if (queue.empty())
						return;
					v = queue.front();
					queue.pop_front();
				}
				int seen;
				{
					std::shared_lock<std::shared_mutex> rl(table_mu);
					seen = (int)table.size();
				}
				if (v % 7 == 0) {
					std::unique_lock<std::shared_mutex> wl(table_mu);
					table[v] = t;
				}
				std::lock_guard<std::mutex> lk(mu);
				total += v + (seen > 0);
			}
		});
	for (int i = 1; i <= items; i++) {
		{
			std::lock_guard<std::mutex> lk(mu);
			queue.push_back(i);
		}
		cv.notify_one();
	}
	{
		std::lock_guard<std::mutex> lk(mu);
		done = true;
	}
	cv.notify_all();
	for (auto &w : workers)
		w.join();
	std::ofstream out("result.txt");
	out << "items " << items << " multiples of 7 " << table.size() << "\n";
	std::printf("total %ld table %zu\n", total, table.size());
	return 0;
}
