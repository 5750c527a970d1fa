// SPDX-License-Identifier: MIT
/*
 * test_escape.c - the printing of strings from a trace (src/util/escape.c):
 * what a terminal acts on (C0 controls, DEL, C1 controls in UTF-8,
 * bidirectional overrides, bytes that are not UTF-8) is escaped, in text as
 * \xNN and in JSON as \u00XX, and everything else, valid UTF-8 included,
 * prints as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/escape.h"

/* What f writes for len bytes of s, as a malloc'd string. */
static char *written(void (*f)(FILE *, const char *, size_t, unsigned), const char *s, size_t len,
		     unsigned flags)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	assert_non_null(out);
	f(out, s, len, flags);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static void json_flags(FILE *out, const char *s, size_t len, unsigned flags)
{
	(void)flags;
	escape_json(out, s, len);
}

static void check_text(const char *in, unsigned flags, const char *want)
{
	char *got = written(escape_write, in, strlen(in), flags);

	assert_string_equal(got, want);
	free(got);
}

static void check_json(const char *in, const char *want)
{
	char *got = written(json_flags, in, strlen(in), 0);

	assert_string_equal(got, want);
	free(got);
}

static void test_plain_unchanged(void **state)
{
	const char *s = "worker-1 pthread_mutex_lock+0x1f std::map<int, int>";

	(void)state;
	/* nothing to escape: the very pointer, no copy */
	assert_ptr_equal(escape_str(s), s);
	assert_false(escape_needed(s, strlen(s), 0));
	check_text(s, 0, s);
	/* valid UTF-8 is text */
	check_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0,
		   "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	check_json("a\"b\\c", "\"a\\\"b\\\\c\"");
}

static void test_c0_del(void **state)
{
	(void)state;
	check_text("\033]0;pwned\007\033[2J", 0, "\\x1b]0;pwned\\x07\\x1b[2J");
	check_text("a\nb\tc\x7f", 0, "a\\x0ab\\x09c\\x7f");
	check_text("a\nb\tc\r", ESCAPE_LINES, "a\nb\tc\\x0d");
	assert_string_equal(escape_str("\033[31mred"), "\\x1b[31mred");
	check_json("\033]52;c;eHl6\007\x7f\n", "\"\\u001b]52;c;eHl6\\u0007\\u007f\\u000a\"");
}

static void test_c1_bidi(void **state)
{
	(void)state;
	/* U+009B (CSI as a C1 control) and U+0085 (NEL) in UTF-8 */
	check_text("x\xc2\x9b"
		   "2Jy\xc2\x85",
		   0, "x\\xc2\\x9b2Jy\\xc2\\x85");
	/* U+202E right-to-left override, U+2066 isolate, U+2028 line separator */
	check_text("a\xe2\x80\xae"
		   "b\xe2\x81\xa6"
		   "c\xe2\x80\xa8",
		   0, "a\\xe2\\x80\\xaeb\\xe2\\x81\\xa6c\\xe2\\x80\\xa8");
	check_json("\xc2\x9b\xe2\x80\xae", "\"\\u009b\\u202e\"");
}

static void test_not_utf8(void **state)
{
	(void)state;
	/* a lone C1 byte (CSI on an 8-bit terminal), a cut sequence, an
	 * overlong NUL, a surrogate */
	check_text("\x9b"
		   "2J",
		   0, "\\x9b2J");
	check_text("a\xe2\x80", 0, "a\\xe2\\x80");
	check_text("\xc0\x80", 0, "\\xc0\\x80");
	check_text("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");
	/* JSON stays valid UTF-8: the byte as the code point of its value */
	check_json("\xff\x9b", "\"\\u00ff\\u009b\"");
}

static void test_fixed_field_and_slots(void **state)
{
	char name[16];
	const char *r[ESCAPE_SLOTS];
	char want[32];

	(void)state;
	/* a thread name of 16 bytes without a NUL is copied, not read past */
	memset(name, 'n', sizeof(name));
	name[3] = '\033';
	assert_string_equal(escape_strn(name, sizeof(name)), "nnn\\x1bnnnnnnnnnnnn");
	memcpy(name, "idle", 5);
	assert_ptr_equal(escape_strn(name, sizeof(name)), name);
	assert_string_equal(escape_str(NULL), "(null)");
	/* ESCAPE_SLOTS results can be used at once (one printf's arguments) */
	for (int i = 0; i < ESCAPE_SLOTS; i++) {
		snprintf(want, sizeof(want), "\033%d", i);
		r[i] = escape_str(want);
	}
	for (int i = 0; i < ESCAPE_SLOTS; i++) {
		snprintf(want, sizeof(want), "\\x1b%d", i);
		assert_string_equal(r[i], want);
	}
}

/* escape_needed and escape_json_plain read eight bytes a step: every byte
 * value at every place of strings of 1 to 24 bytes, between the extreme
 * printable bytes (0x20, 0x7e, which a wrong carry or borrow would turn),
 * decides as the byte alone does; with ESCAPE_LINES a newline and a tab
 * need nothing; JSON takes no '"' or '\\' as it is. */
static void test_needed_every_byte_every_place(void **state)
{
	static const unsigned char fill[] = {0x20, 0x7e, 'a', 0x21, 0x5d};
	unsigned char s[24];

	(void)state;
	for (size_t len = 1; len <= sizeof(s); len++)
		for (size_t at = 0; at < len; at++)
			for (size_t f = 0; f < sizeof(fill); f++)
				for (unsigned b = 0; b < 256; b++) {
					int want = b < 0x20 || b >= 0x7f;
					int lines = want && b != '\n' && b != '\t';

					int plain = !want && b != '"' && b != '\\';

					memset(s, fill[f], len);
					s[at] = (unsigned char)b;
					if (escape_needed((const char *)s, len, 0) != want ||
					    escape_needed((const char *)s, len, ESCAPE_LINES) != lines ||
					    escape_json_plain((const char *)s, len) != plain)
						fail_msg("len %zu at %zu fill %#x byte %#x", len, at,
							 fill[f], b);
				}
}

static void test_dup(void **state)
{
	char *d = escape_dup("a\033b\n", 4, ESCAPE_LINES);

	(void)state;
	assert_non_null(d);
	assert_string_equal(d, "a\\x1bb\n");
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_unchanged),
	    cmocka_unit_test(test_c0_del),
	    cmocka_unit_test(test_c1_bidi),
	    cmocka_unit_test(test_not_utf8),
	    cmocka_unit_test(test_fixed_field_and_slots),
	    cmocka_unit_test(test_needed_every_byte_every_place),
	    cmocka_unit_test(test_dup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
