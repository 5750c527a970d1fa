// SPDX-License-Identifier: MIT
/*
 * test_stream.c - the host/target split's untrusted-input checks: the names
 * the --stream wire format accepts (stream_proto_path_ok), the receiving
 * end writing frames as files and refusing names out of its directory
 * (stream_recv.c), and paths of a trace looked up inside a --sysroot
 * (sysroot.c: links resolve inside the root, ".." never leaves it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace/stream_proto.h"
#include "trace/stream_recv.h"
#include "util/files.h"
#include "util/sysroot.h"

static int ok(const char *p)
{
	return stream_proto_path_ok(p, strlen(p));
}

static void test_path_ok(void **state)
{
	(void)state;
	assert_true(ok("metadata"));
	assert_true(ok("stream_12"));
	assert_true(ok(".spool/proc/1234.maps"));
	assert_true(ok(".spool/snap/1/a.img"));
	assert_true(ok("..x"));
	assert_false(ok(""));
	assert_false(ok("/etc/passwd"));
	assert_false(ok(".."));
	assert_false(ok("../x"));
	assert_false(ok("a/../../x"));
	assert_false(ok("a/."));
	assert_false(ok("a//b"));
	assert_false(ok("a/"));
	assert_false(ok("a b"));
	assert_false(ok("a\nb"));
	assert_false(ok("a/b/c/d/e/f"));	     /* deeper than STREAM_MAX_DEPTH */
	assert_false(stream_proto_path_ok("ab", 3)); /* a NUL inside */
}

static char tmp[256];

static void frame(FILE *f, uint32_t type, const char *path, uint64_t off, const char *data,
		  size_t len)
{
	unsigned char h[STREAM_HDR_SIZE];
	size_t plen = path ? strlen(path) : 0;

	stream_put_u32(h, type);
	stream_put_u32(h + 4, (uint32_t)plen);
	stream_put_u64(h + 8, off);
	stream_put_u64(h + 16, len);
	assert_int_equal(fwrite(h, 1, sizeof(h), f), sizeof(h));
	if (plen)
		assert_int_equal(fwrite(path, 1, plen, f), plen);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
}

/* Run the receiving end over the stream in file `in`; returns the last
 * stream_recv_frame result. */
static int receive(const char *in, struct stream_recv *c)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->dirfd = -1;
	c->max_bytes = 1u << 20;
	c->buf = malloc(STREAM_MAX_DATA);
	assert_non_null(c->buf);
	snprintf(c->partial, sizeof(c->partial), "%s/out", tmp);
	c->sock = open(in, O_RDONLY | O_CLOEXEC);
	assert_true(c->sock >= 0);
	rc = stream_recv_magic(c);
	if (!rc)
		while ((rc = stream_recv_frame(c)) == 0)
			;
	close(c->sock);
	if (c->dirfd >= 0)
		close(c->dirfd);
	free(c->buf);
	return rc;
}

/* The events the board announces: counted when their packets arrive, the
 * rest noted as missing in a cut copy (.spool/stream). */
static void test_events(void **state)
{
	char in[PATH_MAX + 8], path[PATH_MAX + 32], note[512] = "";
	unsigned char end[8];
	struct stream_recv c;
	FILE *f;
	size_t n;

	(void)state;
	snprintf(in, sizeof(in), "%s/in", tmp);
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(STREAM_MAGIC, f);
	frame(f, STREAM_RESET, NULL, 0, NULL, 0);
	stream_put_u64(end, 11);
	frame(f, STREAM_EVENTS, "stream_0", 5, (const char *)end, 8);
	frame(f, STREAM_DATA, "stream_0", 0, "hello ", 6);
	frame(f, STREAM_DATA, "stream_0", 6, "board", 5);
	stream_put_u64(end, 100);
	frame(f, STREAM_EVENTS, "stream_1", 7, (const char *)end, 8);
	frame(f, STREAM_DATA, "stream_1", 0, "x", 1);
	fclose(f); /* cut here: stream_1's packets never whole */
	assert_true(receive(in, &c) < 0);
	assert_int_equal(c.announced, 12);
	assert_int_equal(c.got, 5);
	c.dirfd = open(c.partial, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(c.dirfd >= 0);
	assert_int_equal(stream_recv_mark_cut(&c), 0);
	close(c.dirfd);
	snprintf(path, sizeof(path), "%s/out/.spool/stream", tmp);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(note, 1, sizeof(note) - 1, f);
	fclose(f);
	note[n] = 0;
	assert_non_null(strstr(note, "cut=1\n"));
	assert_non_null(strstr(note, "announced=12\n"));
	assert_non_null(strstr(note, "missing=7\n"));

	/* an announcement without its 8 bytes is refused */
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(STREAM_MAGIC, f);
	frame(f, STREAM_RESET, NULL, 0, NULL, 0);
	frame(f, STREAM_EVENTS, "stream_0", 5, "abcd", 4);
	fclose(f);
	assert_true(receive(in, &c) < 0);
	assert_non_null(strstr(c.why, "malformed event count"));
}

static void test_receive(void **state)
{
	char in[PATH_MAX + 8], path[PATH_MAX + 32], got[64] = "";
	struct stream_recv c;
	FILE *f, *g;

	(void)state;
	snprintf(in, sizeof(in), "%s/in", tmp);
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(STREAM_MAGIC, f);
	frame(f, STREAM_RESET, NULL, 0, NULL, 0);
	frame(f, STREAM_DATA, "stream_0", 0, "hello ", 6);
	frame(f, STREAM_DATA, "stream_0", 6, "board", 5);
	frame(f, STREAM_DATA, ".spool/tmp", 0, "x", 1);
	frame(f, STREAM_REMOVE, ".spool/tmp", 0, NULL, 0);
	frame(f, STREAM_END, NULL, 12, NULL, 0);
	fclose(f);
	assert_int_equal(receive(in, &c), 1);
	snprintf(path, sizeof(path), "%s/out/stream_0", tmp);
	g = fopen(path, "r");
	assert_non_null(g);
	assert_non_null(fgets(got, sizeof(got), g));
	fclose(g);
	assert_string_equal(got, "hello board");
	snprintf(path, sizeof(path), "%s/out/.spool/tmp", tmp);
	assert_int_equal(access(path, F_OK), -1);

	/* a name out of the directory ends the stream, nothing written there */
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(STREAM_MAGIC, f);
	frame(f, STREAM_RESET, NULL, 0, NULL, 0);
	frame(f, STREAM_DATA, "../escaped", 0, "x", 1);
	fclose(f);
	assert_true(receive(in, &c) < 0);
	assert_non_null(strstr(c.why, "file name"));
	snprintf(path, sizeof(path), "%s/escaped", tmp);
	assert_int_equal(access(path, F_OK), -1);

	/* an END whose count is not what arrived */
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(STREAM_MAGIC, f);
	frame(f, STREAM_RESET, NULL, 0, NULL, 0);
	frame(f, STREAM_DATA, "stream_0", 0, "x", 1);
	frame(f, STREAM_END, NULL, 2, NULL, 0);
	fclose(f);
	assert_true(receive(in, &c) < 0);

	/* past --max-size */
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(STREAM_MAGIC, f);
	frame(f, STREAM_RESET, NULL, 0, NULL, 0);
	frame(f, STREAM_SIZE, "stream_0", 1ull << 40, NULL, 0);
	fclose(f);
	assert_true(receive(in, &c) < 0);
	assert_non_null(strstr(c.why, "max-size"));
}

static void test_sysroot(void **state)
{
	char root[PATH_MAX + 8], p[PATH_MAX + 64];
	FILE *f;
	int fd;

	(void)state;
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(p, sizeof(p), "%s/usr/lib", root);
	mkdir(root, 0700);
	snprintf(p, sizeof(p), "%s/usr", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/usr/lib", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/usr/lib/libx.so", root);
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	/* an absolute link, as a board's merged /lib */
	snprintf(p, sizeof(p), "%s/lib", root);
	assert_int_equal(symlink("/usr/lib", p), 0);
	/* a file outside the root, and a link to it */
	snprintf(p, sizeof(p), "%s/outside", tmp);
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/evil", root);
	assert_int_equal(symlink("../outside", p), 0);

	assert_int_equal(sysroot_set(root), 0);
	fd = sysroot_open("/lib/libx.so");
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sysroot_open("/../outside"), -ENOENT);
	assert_int_equal(sysroot_open("/evil"), -ENOENT);
	assert_int_equal(sysroot_open("/usr/lib"), -ENODEV);
	assert_int_equal(sysroot_open("/nothing"), -ENOENT);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/spool-test-stream.XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return files_rm_tree(tmp) < 0 ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_ok),
	    cmocka_unit_test(test_receive),
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_sysroot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
