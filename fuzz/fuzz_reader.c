// SPDX-License-Identifier: MIT
/*
 * fuzz_reader.c - libFuzzer harness of the trace reader (src/trace/reader.c)
 * and the unpacking of compressed input records (src/trace/zinput.c): a
 * crafted trace directory read the ways spool's commands read one.
 *
 * Option byte 0 picks the reader's mode: bit 0 TRACE_READER_BY_STREAM, bit 1
 * a store hook (the replay loader's way), bits 2-3 a shard (n = 2). Every
 * event's file offset, stream info, problem and the usual side files are
 * touched, so ASan sees any read past what the reader handed out. Then
 * `spool info` (src/cmd/info.c) reads the trace, its output sent to
 * /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cmd/cmd.h"
#include "../src/trace/trace.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

/* Records the store hook placed: they stay until the input is done, as
 * the replay loader keeps its copies (trace.h: "it stays there"). */
struct store {
	void **slots;
	size_t n, cap;
};

/* Where the reader decodes a record: a fresh buffer of exactly size bytes,
 * so ASan sees a read past the record's size. */
static void *store_fn(void *arg, unsigned kind, size_t size)
{
	struct store *s = arg;
	void *p;

	(void)kind;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		void **v = realloc(s->slots, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->slots = v;
		s->cap = cap;
	}
	p = malloc(size ? size : 1);
	if (p)
		s->slots[s->n++] = p;
	return p;
}

static void touch_side_files(struct trace_reader *r)
{
	static const char *const names[] = {
	    "summary", "cmdline", "probes",   "coverage",    "vars",	    "record",
	    "environ", "sys",	  "buildids", "proc/1.maps", "../metadata", "proc/../../x"};
	volatile uint8_t sink = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *data = NULL;
		size_t len = 0;

		if (trace_reader_file(r, names[i], &data, &len) == 0) {
			if (len)
				sink ^= (uint8_t)data[len - 1];
			sink ^= (uint8_t)data[len]; /* NUL-terminated, says trace.h */
			free(data);
		}
	}
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct trace_problem prob;
	struct trace_reader *r = NULL;
	struct trace_event ev;
	struct store st = {0};
	unsigned mode;
	int flags = 0, rc;
	volatile uint64_t sink = 0;
	char *info_argv[3];

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	info_argv[0] = "info";
	info_argv[1] = (char *)in.trace_dir;
	info_argv[2] = NULL;
	mode = fuzz_opt(&in, 0);
	if (mode & 1)
		flags |= TRACE_READER_BY_STREAM;
	if (mode & 4)
		flags |= TRACE_READER_SHARD((mode >> 3) & 1, 2);
	memset(&prob, 0, sizeof(prob));
	rc = trace_reader_open_store(&r, in.trace_dir, &prob, flags, (mode & 2) ? store_fn : NULL,
				     &st);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < trace_reader_nstreams(r); i++)
		sink += trace_reader_stream(r, i)->events;
	while (trace_reader_next(r, &ev) > 0) {
		const struct rec_hdr *h = ev.rec;

		sink += ev.ns + trace_event_file_off(&ev, sizeof(*h));
		/* The whole record is readable (size bytes from rec). */
		if (h->size)
			sink += ((const uint8_t *)h)[h->size - 1];
		if (ev_kind(h->word) == KIND_INPUT) {
			size_t zs = trace_zinput_size(h);

			if (zs && zs <= (16u << 20)) {
				void *buf = malloc(zs);

				if (buf) {
					trace_zinput_unpack(h, buf, zs);
					free(buf);
				}
			}
		}
	}
	for (size_t i = 0; i < trace_reader_nstreams(r); i++) {
		const struct trace_stream_info *si = trace_reader_stream(r, i);

		sink += si->events + si->discarded + si->seq_gaps + strlen(si->file);
	}
	for (size_t i = 0; i < trace_reader_nproblems(r); i++)
		sink += strlen(trace_reader_problem(r, i)->msg);
	sink += trace_reader_clock(r)->tsc_hz + strlen(trace_reader_dir(r));
	touch_side_files(r);
	trace_reader_close(r);
out:
	cmd_info(2, info_argv);
	fflush(stdout);
	for (size_t i = 0; i < st.n; i++)
		free(st.slots[i]);
	free(st.slots);
	(void)sink;
	return 0;
}
