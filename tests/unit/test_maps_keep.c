// SPDX-License-Identifier: MIT
/*
 * test_maps_keep.c - the maps a trace keeps for a process
 * (src/collect/maps_keep.c): a new text keeps the file lines of the one
 * before that none of its mappings overlap (a dlclose'd library), drops
 * those it maps again and the anonymous ones, and survives garbage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/maps_keep.h"

#define L_EXE "5000-6000 r-xp 00000000 fe:00 10 /usr/bin/prog\n"
#define L_LIBC "7000-8000 r-xp 00000000 fe:00 11 /usr/lib/libc.so.6\n"
#define L_PLUG "9000-a000 r-xp 00000000 fe:00 12 /usr/lib/prog/plugin.so\n"
#define L_PLUG2 "a000-b000 rw-p 00001000 fe:00 12 /usr/lib/prog/plugin.so\n"
#define L_HEAP "c000-d000 rw-p 00000000 00:00 0 [heap]\n"
#define L_OTHER "9800-9900 r-xp 00000000 fe:00 13 /usr/lib/other.so\n"

/* The merge of old and new, as a malloc'd string. */
static char *merged(const char *old, const char *new_text)
{
	char *t = strdup(new_text);
	size_t len = strlen(t);

	assert_non_null(t);
	assert_int_equal(maps_keep_merge(old, old ? strlen(old) : 0, &t, &len), 0);
	assert_int_equal(strlen(t), len);
	return t;
}

static void test_unloaded_kept(void **state)
{
	char *t = merged(L_EXE L_LIBC L_PLUG L_PLUG2 L_HEAP, L_EXE L_LIBC);

	(void)state;
	assert_string_equal(t, L_EXE L_LIBC L_PLUG L_PLUG2);
	free(t);
}

static void test_overlapped_dropped(void **state)
{
	/* another library now where the plugin's first mapping was */
	char *t = merged(L_EXE L_PLUG L_PLUG2, L_EXE L_OTHER);

	(void)state;
	assert_string_equal(t, L_EXE L_OTHER L_PLUG2);
	free(t);
}

static void test_nothing_old(void **state)
{
	char *t = merged(NULL, L_EXE);

	(void)state;
	assert_string_equal(t, L_EXE);
	free(t);
	t = merged(L_EXE L_LIBC, L_EXE L_LIBC);
	assert_string_equal(t, L_EXE L_LIBC);
	free(t);
}

static void test_no_final_newline(void **state)
{
	char *t = merged(L_PLUG, "5000-6000 r-xp 00000000 fe:00 10 /usr/bin/prog");

	(void)state;
	assert_string_equal(t, L_EXE L_PLUG);
	free(t);
}

static void test_garbage(void **state)
{
	/* lines that do not parse, a range that ends before it starts, no
	 * newline at the end: skipped, nothing read past the text */
	static const char old[] = "zz-yy r-xp\n\n8000-7000 r-xp 0 fe:00 1 /x\n" L_PLUG
				  "b000-c000 r-xp 00000000 fe:00 1 /y";
	char *t = merged(old, "garbage\n" L_EXE);

	(void)state;
	assert_string_equal(t, "garbage\n" L_EXE L_PLUG "b000-c000 r-xp 00000000 fe:00 1 /y\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unloaded_kept),
	    cmocka_unit_test(test_overlapped_dropped),
	    cmocka_unit_test(test_nothing_old),
	    cmocka_unit_test(test_no_final_newline),
	    cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
