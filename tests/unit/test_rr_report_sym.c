// SPDX-License-Identifier: MIT
/*
 * test_rr_report_sym.c - the call sites in a replay's stop report
 * (replay/rr_report_sym.c): a mangled name after "called from " is
 * demangled without its parameters, anything else is left alone, and a
 * report is read no further than its buffer (terminated at its end).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/rr_report_sym.h"

static void test_report_demangled(void **state)
{
	char r[256];

	(void)state;
	strcpy(r, "replay:   lock on lock 0x10 (this run's lock index 3), called from "
		  "_ZN4Bank8transferEiil+0x80 (bank)\nspool: advice");
	rr_report_demangle(r, sizeof(r));
	assert_string_equal(r, "replay:   lock on lock 0x10 (this run's lock index 3), called from "
			       "Bank::transfer+0x80 (bank)\nspool: advice");
}

static void test_report_left_alone(void **state)
{
	char r[256];

	(void)state;
	/* a C name, a file and offset, a broken mangling, no site at all */
	strcpy(r, "called from main+0x4 (prog), called from /lib/libx.so+0x33ceb, "
		  "called from _Zjunk+0x1 (p) called from ");
	rr_report_demangle(r, sizeof(r));
	assert_string_equal(r, "called from main+0x4 (prog), called from /lib/libx.so+0x33ceb, "
			       "called from _Zjunk+0x1 (p) called from ");
}

static void test_report_cut(void **state)
{
	char r[48];

	(void)state;
	/* a report that fills its buffer: the name shrinks, the tail follows */
	strcpy(r, "called from _ZN4Bank8transferEiil+0x80 (bank) x");
	rr_report_demangle(r, sizeof(r));
	assert_string_equal(r, "called from Bank::transfer+0x80 (bank) x");
	/* an unterminated buffer is terminated at its end first */
	memset(r, 'x', sizeof(r));
	rr_report_demangle(r, sizeof(r));
	assert_int_equal(strlen(r), sizeof(r) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_demangled),
		cmocka_unit_test(test_report_left_alone),
		cmocka_unit_test(test_report_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
