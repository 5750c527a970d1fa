// SPDX-License-Identifier: MIT
/*
 * test_rr_tree.c - process trees on the host side (src/replay/rr_tree.c,
 * the proc lines of the record side file in rr_log.c): the record layout
 * puts every process's area where the tree says, page-aligned, each set up
 * like the first; what spool reads back from the tree (the program can
 * write it) is bounded; the record file's proc lines round-trip, and lines
 * out of order, out of range or malformed are ignored.
 */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "replay/rr_log.h"
#include "replay/rr_tree.h"
#include "trace/trace.h"

#define OBJS 1024u
#define PROCS 5u

static const struct trace_clock test_clock = {
    .tsc_hz = 3000000000ull,
    .tsc0 = 3000000000000ull,
    .mono_ns = 1000000000000ull,
    .real_ns = 1700000000000000000ull,
};

static void *record_ext(int serial, uint64_t *size)
{
	void *ext;

	*size = rr_tree_record_size(OBJS, serial, PROCS);
	ext = calloc(1, *size);
	assert_non_null(ext);
	rr_record_area_init(ext, OBJS, RR_MAX_THREADS);
	((struct rr_area *)ext)->stuck_ms = 1234;
	if (serial)
		rr_record_area_serial(ext, 1, 77);
	rr_tree_record_init(ext, OBJS, serial, PROCS);
	return ext;
}

static void layout(void **state)
{
	for (int serial = 0; serial < 2; serial++) {
		uint64_t size;
		void *ext = record_ext(serial, &size);
		struct rr_area *a0 = ext;
		struct rr_tree *t = rr_tree_record_tree(ext, OBJS, serial);

		assert_int_equal(a0->tree_off % 4096, 0);
		assert_ptr_equal((char *)ext + a0->tree_off, (char *)t);
		assert_int_equal(t->nprocs, 1);
		assert_int_equal(t->max, PROCS);
		assert_int_equal(t->only, RR_NO_PROC);
		for (uint32_t k = 1; k < PROCS; k++) {
			struct rr_area *a = rr_tree_record_area(ext, OBJS, serial, k);

			assert_ptr_equal((char *)ext + t->ent[k].area_off, (char *)a);
			assert_int_equal(t->ent[k].area_off % 4096, 0);
			assert_true(t->ent[k].area_off + t->ent[k].area_size <= size);
			assert_true(t->ent[k].area_off >= a0->tree_off + sizeof(*t));
			assert_int_equal(a->magic, RR_MAGIC);
			assert_int_equal(a->mode, RR_MODE_RECORD);
			assert_int_equal(a->proc, k);
			assert_int_equal(a->stuck_ms, 1234);
			assert_int_equal(a->serial, serial);
			if (serial) {
				assert_int_equal(a->max_threads, RR_CHILD_THREADS);
				assert_int_equal(a->seed, 77 + k);
				assert_true(a->serial_off + (uint64_t)RR_CHILD_THREADS * 64 <=
					    t->ent[k].area_size);
			} else {
				assert_int_equal(a->serial_off, 0);
			}
			if (k > 1)
				assert_int_equal(t->ent[k].area_off,
						 t->ent[k - 1].area_off + t->ent[k - 1].area_size);
		}
		free(ext);
	}
}

/* What the program wrote into the tree is bounded when spool reads it. */
static void info_bounded(void **state)
{
	uint64_t size;
	void *ext = record_ext(0, &size);
	struct rr_tree *t = rr_tree_record_tree(ext, OBJS, 0);
	struct rr_info *info = calloc(1, sizeof(*info));
	uint32_t wanted;

	assert_non_null(info);
	t->nprocs = 1000; /* more than there is room for */
	assert_int_equal(rr_tree_record_procs(ext, OBJS, 0, PROCS, &wanted), PROCS);
	assert_int_equal(wanted, 1000);
	t->ent[1].parent = 4000;
	t->ent[1].prev = 3;
	t->ent[1].kind = 99;
	t->ent[2].kind = RR_PK_PSPAWN;
	memset(t->ent[3].exe, 'x', sizeof(t->ent[3].exe)); /* no NUL */
	t->ent[3].exe[5] = '\n';
	rr_tree_record_info(ext, OBJS, 0, PROCS, info);
	assert_int_equal(info->nprocs, PROCS);
	assert_int_equal(info->procs[1].parent, RR_NO_PROC);
	assert_int_equal(info->procs[1].prev, 3);
	assert_int_equal(info->procs[1].kind, RR_PK_SPAWN);
	assert_int_equal(info->procs[2].kind, RR_PK_PSPAWN);
	assert_int_equal(strlen(info->procs[3].exe), sizeof(info->procs[3].exe) - 1);
	assert_null(strchr(info->procs[3].exe, '\n'));
	free(info);
	free(ext);
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* Write a trace whose record side file is text, and read it back. */
static void read_record(const char *text, struct rr_info *info)
{
	char root[] = "/tmp/spool-test-rr-tree-XXXXXX", dir[64];
	struct trace_writer *w;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/t", root);
	assert_int_equal(trace_writer_open(&w, dir, &test_clock), 0);
	assert_int_equal(trace_writer_add_file(w, "record", text, strlen(text)), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(rr_info_read(dir, info), 0);
	nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void record_lines(void **state)
{
	struct rr_info *in = calloc(1, sizeof(*in)), *out = calloc(1, sizeof(*out));
	char root[] = "/tmp/spool-test-rr-tree-XXXXXX", dir[64];
	struct trace_writer *w;

	assert_non_null(in);
	assert_non_null(out);
	strcpy(in->mode, "sync");
	in->nprocs = 3;
	in->procs[0] = (struct rr_info_proc){100, 99, RR_NO_PROC, RR_NO_PROC, RR_PK_ROOT, 0, "/bin/sh", 0};
	in->procs[1] = (struct rr_info_proc){101, 100, 0, RR_NO_PROC, RR_PK_FORK, 0, "/bin/sh", 1};
	in->procs[2] = (struct rr_info_proc){101, 100, 0, 1, RR_PK_EXEC, 15, "/opt/a dir/prog", 0};
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/t", root);
	assert_int_equal(trace_writer_open(&w, dir, &test_clock), 0);
	assert_int_equal(rr_info_write(w, in), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(rr_info_read(dir, out), 0);
	nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(out->nprocs, 3);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(out->procs[k].pid, in->procs[k].pid);
		assert_int_equal(out->procs[k].ppid, in->procs[k].ppid);
		assert_int_equal(out->procs[k].parent, in->procs[k].parent);
		assert_int_equal(out->procs[k].prev, in->procs[k].prev);
		assert_int_equal(out->procs[k].kind, in->procs[k].kind);
		assert_int_equal(out->procs[k].end_sig, in->procs[k].end_sig);
		assert_string_equal(out->procs[k].exe, in->procs[k].exe);
		/* (process 1: pid 1 of a pid namespace of its own) */
		assert_int_equal(out->procs[k].ns_pid, in->procs[k].ns_pid);
	}

	/* untrusted lines: out of order, kind out of range, malformed */
	read_record("format=spool-record-1\nmode=sync\n"
		    "proc=0 10 9 -1 -1 0 0 /bin/a\n"
		    "proc=2 12 10 0 -1 1 0 /bin/skipped\n"
		    "proc=1 11 10 0 -1 9 0 /bin/badkind\n"
		    "proc=1 11 10 zero -1 1 0\n"
		    "proc=1 11 10 0 -1 1 0\n"
		    "proc=2 12 10 5000 7000 3 99 /bin/c\n"
		    "proc_ns_pid=1 1\nproc_ns_pid=3 5\nproc_ns_pid=2 -4\nproc_ns_pid=0\n",
		    out);
	assert_int_equal(out->nprocs, 3);
	assert_int_equal(out->procs[1].pid, 11);
	assert_string_equal(out->procs[1].exe, "");
	assert_int_equal(out->procs[2].kind, RR_PK_SPAWN);
	assert_int_equal(out->procs[2].parent, RR_NO_PROC); /* numbers a process has not yet */
	assert_int_equal(out->procs[2].prev, RR_NO_PROC);
	assert_int_equal(out->procs[2].end_sig, 0); /* no such signal */
	assert_string_equal(out->procs[2].exe, "/bin/c");
	/* a pid in a namespace: of a process listed, positive */
	assert_int_equal(out->procs[1].ns_pid, 1);
	assert_int_equal(out->procs[2].ns_pid, 0);
	assert_int_equal(out->procs[0].ns_pid, 0);
	free(in);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(layout),
	    cmocka_unit_test(info_bounded),
	    cmocka_unit_test(record_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
