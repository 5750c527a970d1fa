// SPDX-License-Identifier: MIT
// main.cpp - part of the shop program (inventory.h says what it is for).
#include <cstdio>
#include <cstdlib>
#include <thread>
#include "inventory.h"
static void worker(shop::Inventory *inv, int id, int n)
{
	for (int i = 0; i < n; i++) {
		inv->add("w" + std::to_string(id) + "-" + std::to_string(i % 5), 2, 1.5 + id);
		inv->take("w" + std::to_string(id) + "-" + std::to_string(i % 5), 1);
	}
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	shop::Inventory inv;
	shop::Inventory::instances++;
	std::vector<std::thread> ts;
	for (int t = 0; t < 3; t++)
		ts.emplace_back(worker, &inv, t, n);
	for (auto &t : ts)
		t.join();
	for (int r = 0; r < 3; r++)
		printf("%s\n", shop::report::summary(inv, r).c_str());
	return 0;
}
