// SPDX-License-Identifier: MIT
/*
 * test_sideword.c - names as one column of a side file (src/trace/sideword.c)
 * and the probes file's lines read back (src/analyze/probes_file.c): a path
 * with spaces, tabs, a newline or a backslash is one word that reads back to
 * the same bytes; versions 1 and 2 are read as they were written; a hostile
 * escape (short, past a byte) stays as it is. And the init site of a heap
 * lock that the text report lists (lockname_init_site): only a site with a
 * file and line, and only for a lock that has no variable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/lockname.h"
#include "analyze/probes_file.h"
#include "trace/sideword.h"

static char *word(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	sideword_write(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_round_trip(void **state)
{
	static const char *const names[] = {"/usr/bin/app", "/tmp/my app/prod cons",
					    "a\tb\nc\\d", "\x7f\x01 \xc3\xa9", "x"};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *w = word(names[i]);

		assert_null(strpbrk(w, " \t\n"));
		assert_string_equal(sideword_unescape(w), names[i]);
		free(w);
	}
	{
		char *w = word("/tmp/my app");

		assert_string_equal(w, "/tmp/my\\040app");
		free(w);
	}
}

static void test_hostile(void **state)
{
	char a[] = "a\\04", b[] = "\\400x", c[] = "end\\", d[] = "x\\000y";

	(void)state;
	assert_string_equal(sideword_unescape(a), "a\\04");
	assert_string_equal(sideword_unescape(b), "\\400x");
	assert_string_equal(sideword_unescape(c), "end\\");
	assert_string_equal(sideword_unescape(d), "x");
}

static void test_probes_lines(void **state)
{
	struct probes_line pl;
	char exe[64];

	(void)state;
	assert_int_equal(probes_file_version("# spool probes 3"), 3);
	assert_int_equal(probes_file_version("# id op method module offset function"), 0);
	assert_int_equal(probes_file_line("4 entry jump /tmp/my\\040app 0x11c9 _Z1fv f()", 3, &pl),
			 0);
	assert_string_equal(pl.module, "/tmp/my app");
	assert_string_equal(pl.sym, "_Z1fv");
	assert_int_equal(pl.off, 0x11c9);
	/* version 2 wrote the path as it is: a backslash is a backslash */
	assert_int_equal(probes_file_line("4 exit int3 /tmp/a\\040b 0x10 f f", 2, &pl), 0);
	assert_string_equal(pl.module, "/tmp/a\\040b");
	assert_int_equal(probes_file_line("4 entry jump - 0x10 f", 1, &pl), 0);
	assert_string_equal(pl.module, "-");
	assert_int_equal(probes_file_line("# exe /x", 3, &pl), -22);
	assert_int_equal(probes_file_line("4 entry jump /tmp/my xyz 0x10 f", 2, &pl), -22);
	assert_int_equal(probes_file_exe("# exe /tmp/my\\040app", 3, exe, sizeof(exe)), 0);
	assert_string_equal(exe, "/tmp/my app");
	assert_int_equal(probes_file_exe("4 entry", 3, exe, sizeof(exe)), -22);
}

/* symbolizer stand-ins: ctx is the site text; a variable only at 0x1000 */
static int fake_data(void *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	(void)ctx;
	(void)pid;
	if (addr != 0x1000)
		return -2;
	snprintf(buf, len, "acct");
	return 0;
}

static int fake_site(void *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	(void)pid;
	(void)addr;
	snprintf(buf, len, "%s", (const char *)ctx);
	return 0;
}

static void test_init_site(void **state)
{
	struct lockname_src l = {.index = 3, .type = 1, .defined = 1, .addr = 0x2000,
				 .init_ip = 0x55};
	struct lockname_syms s = {.data = fake_data, .site = fake_site,
				  .ctx = (void *)"worker+0x1d (lockcount.c:53)"};
	char buf[128], name[128];

	(void)state;
	assert_int_equal(lockname_init_site(&l, &s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "worker+0x1d (lockcount.c:53)");
	assert_string_equal(lockname_format(&l, &s, name, sizeof(name)), "worker+0x1d#3");
	/* a module, not a file and line: the name says all there is */
	s.ctx = (void *)"g_once_init_leave+0x67 (libglib-2.0.so.0.7400.6)";
	assert_int_equal(lockname_init_site(&l, &s, buf, sizeof(buf)), -2);
	s.ctx = (void *)"f(int, long)";
	assert_int_equal(lockname_init_site(&l, &s, buf, sizeof(buf)), -2);
	s.ctx = (void *)"f (:5)";
	assert_int_equal(lockname_init_site(&l, &s, buf, sizeof(buf)), -2);
	/* a lock with a variable is named by it: no init site listed */
	s.ctx = (void *)"worker+0x1d (lockcount.c:53)";
	l.addr = 0x1000;
	assert_int_equal(lockname_init_site(&l, &s, buf, sizeof(buf)), -2);
	assert_string_equal(lockname_format(&l, &s, name, sizeof(name)), "acct");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_probes_lines),
	    cmocka_unit_test(test_init_site),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
