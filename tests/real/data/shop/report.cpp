// SPDX-License-Identifier: MIT
// report.cpp - part of the shop program (inventory.h says what it is for).
#include <sstream>
#include "inventory.h"
namespace shop { namespace report {
std::string summary(const Inventory &inv, int round)
{
	std::ostringstream o;
	int left = inv.count();
	o << "round " << round << ": " << left << " items, value " << inv.value();
	return o.str();
}
} }
