// SPDX-License-Identifier: MIT
// inventory.cpp - part of the shop program (inventory.h says what it is for).
#include "inventory.h"
namespace shop {
int Inventory::instances = 0;
void Inventory::add(const std::string &name, int qty, double price)
{
	std::lock_guard<std::mutex> g(mu_);
	Item &it = items_[name];
	it.name = name;
	it.qty += qty;
	it.price = price;
	total_ += qty;
}
bool Inventory::take(const std::string &name, int qty)
{
	std::lock_guard<std::mutex> g(mu_);
	auto i = items_.find(name);
	if (i == items_.end() || i->second.qty < qty)
		return false;
	i->second.qty -= qty;
	total_ -= qty;
	return true;
}
double Inventory::value() const
{
	std::lock_guard<std::mutex> g(mu_);
	double v = 0;
	for (const auto &p : items_)
		v += p.second.qty * p.second.price;
	return v;
}
}
