// SPDX-License-Identifier: MIT
/*
 * test_f128.c - IEEE binary128 values (aarch64's long double) printed by
 * the reports on any host (src/util/f128.c): the text glibc's "%.36Lg"
 * gives where long double is binary128 (the expected strings are
 * libquadmath's "%.36Qg" of the same values), the special values, and the
 * exact order of values the x86-64 host's long double cannot tell apart.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/f128.h"

static const struct {
	__float128 v;
	const char *text;
} f128_cases[] = {
	{0.1Q, "0.100000000000000000000000000000000005"},
	{1.0Q / 3, "0.333333333333333333333333333333333317"},
	{-2.5Q, "-2.5"},
	{1e-300Q, "1.00000000000000000000000000000000001e-300"},
	{-1e300Q, "-1.00000000000000000000000000000000004e+300"},
	{123456789012345678901234567890123456.0Q, "123456789012345678901234567890123456"},
	{1e36Q, "1e+36"},
	{1e-5Q, "9.99999999999999999999999999999999966e-06"},
	{1e-4Q, "9.99999999999999999999999999999999966e-05"},
	{100.0Q, "100"},
	{0.5Q, "0.5"},
	{0.0Q, "0"},
};

static void format_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(f128_cases) / sizeof(f128_cases[0]); i++) {
		uint8_t raw[16];
		char buf[128];

		memcpy(raw, &f128_cases[i].v, 16);
		f128_format(raw, buf, sizeof(buf));
		assert_string_equal(buf, f128_cases[i].text);
	}
}

/* The largest, the smallest normal and the smallest subnormal value, from
 * their bit patterns; infinities and NaN. */
static void format_limits(void **state)
{
	static const struct {
		uint64_t hi, lo;
		const char *text;
	} c[] = {
		{0x7ffeffffffffffffull, ~0ull, "1.18973149535723176508575932662800702e+4932"},
		{0x0001000000000000ull, 0, "3.3621031431120935062626778173217526e-4932"},
		{0, 1, "6.47517511943802511092443895822764655e-4966"},
		{0x7fff000000000000ull, 0, "inf"},
		{0xffff000000000000ull, 0, "-inf"},
		{0x7fff800000000000ull, 0, "nan"},
		{0x8000000000000000ull, 0, "-0"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t raw[16];
		char buf[128];

		memcpy(raw, &c[i].lo, 8);
		memcpy(raw + 8, &c[i].hi, 8);
		f128_format(raw, buf, sizeof(buf));
		assert_string_equal(buf, c[i].text);
	}
}

static void order(void **state)
{
	__float128 v[] = {-1e300Q, -1.0Q / 3, -0.0Q, 1e-4960Q, 1.0Q / 3, 1.0Q / 3 + 1e-30Q, 1e300Q};
	uint8_t a[16], b[16];

	(void)state;
	for (size_t i = 0; i + 1 < sizeof(v) / sizeof(v[0]); i++) {
		memcpy(a, &v[i], 16);
		memcpy(b, &v[i + 1], 16);
		assert_true(f128_less(a, b));
		assert_false(f128_less(b, a));
		assert_false(f128_less(a, a));
	}
	/* the host's long double: close, not exact */
	memcpy(a, &v[4], 16);
	assert_true(fabsl(f128_to_ld(a) - 1.0L / 3) < 1e-18L);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(format_values),
	    cmocka_unit_test(format_limits),
	    cmocka_unit_test(order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
