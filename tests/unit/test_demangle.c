// SPDX-License-Identifier: MIT
/*
 * test_demangle.c - C++ names (util/demangle.c): demangling through
 * libstdc++, the name without its parameter list, the three ways a glob
 * matches a symbol, and the LIB: separator that is not part of "::".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/demangle.h"

static void test_demangle_names(void **state)
{
	char b[256];

	(void)state;
	assert_int_equal(demangle_name("_Z8transferiil", b, sizeof(b)), 1);
	assert_string_equal(b, "transfer(int, int, long)");
	assert_int_equal(demangle_name("_ZN4Bank8transferEiil", b, sizeof(b)), 1);
	assert_string_equal(b, "Bank::transfer(int, int, long)");
	assert_int_equal(demangle_name("_ZL4acct", b, sizeof(b)), 1);
	assert_string_equal(b, "acct");
	/* C names stay as they are, even one __cxa_demangle would read as a type */
	assert_int_equal(demangle_name("main", b, sizeof(b)), 0);
	assert_string_equal(b, "main");
	assert_int_equal(demangle_name("i", b, sizeof(b)), 0);
	assert_string_equal(b, "i");
	/* not a valid mangling: left alone */
	assert_int_equal(demangle_name("_Zjunk", b, sizeof(b)), 0);
	assert_string_equal(b, "_Zjunk");
	/* truncated to the buffer, terminated */
	assert_int_equal(demangle_name("_ZN4Bank8transferEiil", b, 8), 1);
	assert_string_equal(b, "Bank::t");
}

static void test_demangle_strip(void **state)
{
	char s[256];

	(void)state;
	strcpy(s, "Bank::transfer(int, int, long)");
	demangle_strip_params(s);
	assert_string_equal(s, "Bank::transfer");
	strcpy(s, "ns::f<int>(int) const");
	demangle_strip_params(s);
	assert_string_equal(s, "ns::f<int>");
	strcpy(s, "(anonymous namespace)::g(char*)");
	demangle_strip_params(s);
	assert_string_equal(s, "(anonymous namespace)::g");
	strcpy(s, "acct");
	demangle_strip_params(s);
	assert_string_equal(s, "acct");
	/* g++'s ABI tag of a function returning std::string: not written */
	strcpy(s, "shop::report::summary[abi:cxx11](shop::Inventory const&, int)");
	demangle_strip_params(s);
	assert_string_equal(s, "shop::report::summary");
	strcpy(s, "Foo::name[abi:cxx11][abi:v2]() const");
	demangle_strip_params(s);
	assert_string_equal(s, "Foo::name");
	strcpy(s, "Vec::operator[](unsigned long)");
	demangle_strip_params(s);
	assert_string_equal(s, "Vec::operator[]");
}

static void test_demangle_match(void **state)
{
	(void)state;
	assert_true(demangle_match("transfer", "_Z8transferiil"));
	assert_false(demangle_match("transfer", "_ZN4Bank8transferEiil"));
	assert_true(demangle_match("Bank::transfer*", "_ZN4Bank8transferEiil"));
	assert_true(demangle_match("*transfer*", "_ZN4Bank8transferEiil"));
	assert_true(demangle_match("_Z8transferiil", "_Z8transferiil"));
	assert_true(demangle_match("transfer(int, int, long)", "_Z8transferiil"));
	/* shop::report::summary[abi:cxx11](shop::Inventory const&, int) */
	assert_true(demangle_match("shop::report::summary",
				   "_ZN4shop6report7summaryB5cxx11ERKNS_9InventoryEi"));
	assert_true(demangle_match("main", "main"));
	assert_false(demangle_match("mai", "main"));
}

static void test_demangle_colon(void **state)
{
	const char *s = "libfoo.so:Bank::transfer";

	(void)state;
	assert_ptr_equal(demangle_colon(s), s + 9);
	assert_null(demangle_colon("Bank::transfer*"));
	assert_null(demangle_colon("a::b::c"));
	s = "a::b:c";
	assert_ptr_equal(demangle_colon(s), s + 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle_names),
		cmocka_unit_test(test_demangle_strip),
		cmocka_unit_test(test_demangle_match),
		cmocka_unit_test(test_demangle_colon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
