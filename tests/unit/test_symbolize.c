// SPDX-License-Identifier: MIT
/*
 * test_symbolize.c - the offline symbolizer and build ids, checked against
 * this very process (its own functions, libc) and against small programs
 * built on the spot as PIE and non-PIE, symbolized after they exited.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/buildid.h"
#include "util/symbolize.h"

/* Kept on one line each so __LINE__ is the line of the function. */
__attribute__((noinline)) int test_sym_probe_target(int x) { return x * 3 + 1; } static const int probe_target_line = __LINE__;
__attribute__((noinline)) static void *test_sym_probe_ret(void) { return __builtin_return_address(0); }

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	assert_non_null(f);
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 16384;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static struct symbolizer *open_self(void)
{
	struct symbolizer *s;
	char *maps = read_text("/proc/self/maps");

	assert_int_equal(symbolizer_open_maps(&s, (uint32_t)getpid(), maps, NULL), 0);
	free(maps);
	return s;
}

static void test_own_function(void **state)
{
	struct symbolizer *s = open_self();
	struct sym_info si;

	assert_int_equal(symbolizer_lookup(s, (uint32_t)getpid(),
					   (uint64_t)(uintptr_t)&test_sym_probe_target, &si), 0);
	assert_string_equal(si.func, "test_sym_probe_target");
	assert_int_equal(si.offset, 0);
	assert_string_equal(base_name(si.file), "test_symbolize.c");
	assert_int_equal(si.line, probe_target_line);
	/* The module is this test binary. */
	{
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		assert_true(n > 0);
		exe[n] = '\0';
		assert_string_equal(si.module, exe);
	}
	/* An address inside the function keeps the name, with an offset. */
	assert_int_equal(symbolizer_lookup(s, (uint32_t)getpid(),
					   (uint64_t)(uintptr_t)&test_sym_probe_target + 1, &si), 0);
	assert_string_equal(si.func, "test_sym_probe_target");
	assert_int_equal(si.offset, 1);
	symbolizer_close(s);
}

static void test_return_address(void **state)
{
	struct symbolizer *s = open_self();
	char buf[512], want[128];
	void *ra = test_sym_probe_ret(); int line = __LINE__;

	symbolizer_format(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)ra, buf, sizeof(buf));
	assert_true(strncmp(buf, "test_return_address+0x", 22) == 0);
	snprintf(want, sizeof(want), " (test_symbolize.c:%d)", line);
	assert_non_null(strstr(buf, want));
	symbolizer_close(s);
}

static void test_libc_function(void **state)
{
	struct symbolizer *s = open_self();
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn;
	struct sym_info si;
	char buf[512];

	assert_non_null(libc);
	/* getpid: not intercepted by the sanitizers, so it is libc's own. */
	fn = dlsym(libc, "getpid");
	assert_non_null(fn);
	assert_int_equal(symbolizer_lookup(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)fn, &si), 0);
	assert_true(strncmp(base_name(si.module), "libc.so", 7) == 0);
	assert_non_null(strstr(si.func, "getpid"));
	assert_int_equal(si.offset, 0);
	/* Formatting an exact address names the function at offset 0. */
	symbolizer_format_pc(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)fn, buf, sizeof(buf));
	assert_non_null(strstr(buf, "getpid+0 ("));
	dlclose(libc);
	symbolizer_close(s);
}

static void test_unknown_address(void **state)
{
	struct symbolizer *s = open_self();
	struct sym_info si;
	char buf[64], small[6];

	assert_int_equal(symbolizer_lookup(s, (uint32_t)getpid(), 0x10, &si), -ENOENT);
	symbolizer_format(s, (uint32_t)getpid(), 0x10, buf, sizeof(buf));
	assert_string_equal(buf, "0x10");
	/* Unknown pid: raw address too. */
	symbolizer_format(s, 1u << 30, 0x1234, buf, sizeof(buf));
	assert_string_equal(buf, "0x1234");
	/* Truncation still terminates. */
	assert_int_equal(symbolizer_format(s, 1u << 30, 0x123456789, small, sizeof(small)), 5);
	assert_string_equal(small, "0x123");
	symbolizer_close(s);
}

/* Run `cmd`, returning its first output line (malloc'd) or NULL. */
static char *first_line_of(const char *cmd, const char *prefix)
{
	FILE *p = popen(cmd, "r");
	char line[1024];
	char *found = NULL;

	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *at = strstr(line, prefix);

		if (at && !found) {
			at += strlen(prefix);
			at[strcspn(at, " \n")] = '\0';
			found = strdup(at);
		}
	}
	pclose(p);
	return found;
}

static void test_buildid_read(void **state)
{
	char hex[BUILDID_HEX_MAX], exe[4096], cmd[4200];
	char *want;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", exe);
	want = first_line_of(cmd, "Build ID: ");
	assert_non_null(want);
	assert_int_equal(buildid_read(exe, hex, sizeof(hex)), 0);
	assert_string_equal(hex, want);
	/* Too small a buffer, not ELF, missing. */
	assert_int_equal(buildid_read(exe, hex, 8), -ENOSPC);
	assert_int_equal(buildid_read("/proc/self/maps", hex, sizeof(hex)), -ENOEXEC);
	assert_int_equal(buildid_read("/nonexistent/spool-test", hex, sizeof(hex)), -ENOENT);
	free(want);
}

static void test_buildid_list(void **state)
{
	char hex[BUILDID_HEX_MAX], exe[4096], line[4400];
	char *maps = read_text("/proc/self/maps"), *list;
	size_t len, nlines = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(buildid_read(exe, hex, sizeof(hex)), 0);
	assert_int_equal(buildid_list_for_maps(maps, &list, &len), 0);
	assert_int_equal(strlen(list), len);
	snprintf(line, sizeof(line), "%s %s\n", hex, exe);
	assert_non_null(strstr(list, line));
	/* The executable is mapped several times but listed once. */
	assert_ptr_equal(strstr(strstr(list, line) + 1, line), NULL);
	assert_non_null(strstr(list, "/libc.so.6\n"));
	for (const char *p = list; *p; p++)
		nlines += *p == '\n';
	assert_true(nlines >= 2);
	free(list);
	free(maps);
}

/* Capture what the symbolizer says on stderr while `maps` is loaded. */
static char *stderr_of_open(const char *maps, const char *buildids, struct symbolizer **s)
{
	char path[] = "/tmp/spool-test-sym-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	char *text;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	assert_int_equal(symbolizer_open_maps(s, (uint32_t)getpid(), maps, buildids), 0);
	/* Lookups do not repeat a warning. */
	symbolizer_lookup(*s, (uint32_t)getpid(), 0x1000, &(struct sym_info){0});
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	text = read_text(path);
	unlink(path);
	return text;
}

static void test_changed_and_missing_files(void **state)
{
	char exe[4096], bogus[4200];
	char *maps = read_text("/proc/self/maps"), *maps2, *err;
	struct symbolizer *s;
	struct sym_info si;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t ml = strlen(maps);
	static const char missing[] =
		"7e0000000000-7e0000001000 r-xp 00000000 08:01 4242 /nonexistent/libgone.so\n";

	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(bogus, sizeof(bogus), "0123456789abcdef0123456789abcdef01234567 %s\n", exe);
	maps2 = malloc(ml + sizeof(missing));
	assert_non_null(maps2);
	memcpy(maps2, maps, ml);
	memcpy(maps2 + ml, missing, sizeof(missing));
	err = stderr_of_open(maps2, bogus, &s);
	assert_non_null(strstr(err, exe));
	assert_non_null(strstr(err, "build id differs"));
	assert_non_null(strstr(err, "/nonexistent/libgone.so: cannot open"));
	/* Said once each. */
	assert_ptr_equal(strstr(strstr(err, "build id differs") + 1, "build id differs"), NULL);
	/* The changed file is still used, the missing one is not. */
	assert_int_equal(symbolizer_lookup(s, (uint32_t)getpid(),
					   (uint64_t)(uintptr_t)&test_sym_probe_target, &si), 0);
	assert_string_equal(si.func, "test_sym_probe_target");
	assert_int_equal(symbolizer_lookup(s, (uint32_t)getpid(), 0x7e0000000010ull, &si), -ENOENT);
	symbolizer_close(s);
	free(err);
	free(maps2);
	free(maps);
}

/*
 * A program built here, run to completion, then symbolized from the maps
 * it printed: the offline case spool is for. Built as PIE and non-PIE.
 */
static const char prog_src[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) int target_fn(int x) { return x + 1; }\n"
	"int main(void)\n"
	"{\n"
	"\tchar line[4096];\n"
	"\tFILE *f = fopen(\"/proc/self/maps\", \"r\");\n"
	"\tprintf(\"ADDR %p\\n\", (void *)&target_fn);\n"
	"\twhile (f && fgets(line, sizeof(line), f))\n"
	"\t\tfputs(line, stdout);\n"
	"\treturn target_fn(-1);\n"
	"}\n";

static void check_built_program(const char *pie_flag)
{
	char dir[] = "/tmp/spool-test-prog-XXXXXX", cmd[2048], src[512], bin[512];
	char *out, *maps;
	unsigned long long addr;
	struct symbolizer *s;
	struct sym_info si;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(prog_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 %s -o %s %s", pie_flag, bin, src);
	if (system(cmd) != 0) {
		fprintf(stderr, "gcc not usable, skipping\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "%s > %s/out", bin, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/out", dir);
	out = read_text(cmd);
	assert_int_equal(sscanf(out, "ADDR %llx", &addr), 1);
	maps = strchr(out, '\n') + 1;
	assert_int_equal(symbolizer_open_maps(&s, 4242, maps, NULL), 0);
	assert_int_equal(symbolizer_lookup(s, 4242, addr, &si), 0);
	assert_string_equal(si.func, "target_fn");
	assert_string_equal(si.file, src);
	assert_int_equal(si.line, 2);
	assert_string_equal(si.module, bin);
	symbolizer_close(s);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_pie_program(void **state) { check_built_program("-pie -fPIE"); }
static void test_non_pie_program(void **state) { check_built_program("-no-pie -fno-PIE"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function),
		cmocka_unit_test(test_return_address),
		cmocka_unit_test(test_libc_function),
		cmocka_unit_test(test_unknown_address),
		cmocka_unit_test(test_buildid_read),
		cmocka_unit_test(test_buildid_list),
		cmocka_unit_test(test_changed_and_missing_files),
		cmocka_unit_test(test_pie_program),
		cmocka_unit_test(test_non_pie_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
