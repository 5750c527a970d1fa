// SPDX-License-Identifier: MIT
// shop - a small multi-file C++ program for tests/real/111-cxx-probe-names.t:
// namespaces, a class with a mutex, std::map and std::string members, a
// function returning std::string (g++ tags it [abi:cxx11]), three threads.
// Built with g++ -g -O1, as a distribution builds: parameters live in
// location lists, and library code (lock_guard) is inlined at the start
// of the methods.
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <vector>
namespace shop {
struct Item { std::string name; int qty; double price; };
class Inventory {
public:
	void add(const std::string &name, int qty, double price);
	bool take(const std::string &name, int qty);
	double value() const;
	int count() const { return total_; }
	static int instances;
private:
	mutable std::mutex mu_;
	std::map<std::string, Item> items_;
	int total_ = 0;
};
namespace report { std::string summary(const Inventory &inv, int round); }
}
