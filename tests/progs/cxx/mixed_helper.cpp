// SPDX-License-Identifier: MIT
/*
 * mixed_helper.cpp - the half of test 384's C++ program built without -g:
 * its functions are only in the symbol table, mangled
 * (_ZN7helpers4Pool5drainEl).
 */
namespace helpers {
struct Pool {
	void fill(long n);
	void drain(long n);
};
} // namespace helpers

volatile long helpers_sink;

__attribute__((noinline)) void helpers::Pool::fill(long n)
{
	helpers_sink += n;
}

__attribute__((noinline)) void helpers::Pool::drain(long n)
{
	helpers_sink -= n;
}

void helpers_touch(long n)
{
	if (n > 100)
		helpers::Pool().drain(n);
}
