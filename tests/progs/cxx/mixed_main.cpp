// SPDX-License-Identifier: MIT
/*
 * mixed_main.cpp - the half of a C++ program built with -g (test 384): a
 * thread enters helpers::Pool::fill, which lives in mixed_helper.cpp, built
 * without -g, so the program's DWARF function table does not hold it nor
 * helpers::Pool::drain, which is never entered (argc is never > 100).
 */
#include <thread>

namespace helpers {
struct Pool {
	void fill(long n);
	void drain(long n);
};
} // namespace helpers

void helpers_touch(long n);

int main(int argc, char **argv)
{
	helpers::Pool p;
	std::thread t([&] { p.fill(argc); });

	t.join();
	helpers_touch(argc);
	(void)argv;
	return 0;
}
