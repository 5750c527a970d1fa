// SPDX-License-Identifier: MIT
/*
 * fuzz_rrlog.c - libFuzzer harness of the replay-log loader: the "record"
 * side file (rr_info_read), the schedule and inputs of a recording laid out
 * in a replay area (src/replay/rr_log.c), the replay image
 * (src/replay/rr_img.c) and the schedule dump (`spool replay --dump`).
 *
 * An input with a .spool/replay.img has its key (bytes 16-23) set to the
 * unpacked trace's rr_img_key, as a replay would find it, so the image's
 * header checks are what is fuzzed. Without one, the log is loaded from the
 * trace, and written as an image and opened again when option bit 1 is set.
 *
 * The order is the command's: the log and image are loaded only from a
 * trace whose "record" side file reads.
 *
 * Option byte 0: bit 0 serial mode, bit 1 image round trip, bit 2 dump.
 * Areas are capped at FUZZ_AREA_MAX (the command maps them from a memfd;
 * here they are calloc'd).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../src/replay/rr_img.h"
#include "../src/replay/rr_log.h"
#include "fuzz.h"

#define FUZZ_AREA_MAX (64ull << 20)

static void fill(const struct rr_log *log)
{
	uint64_t size = rr_log_area_size(log);
	void *area;

	if (size > FUZZ_AREA_MAX)
		return;
	area = calloc(1, size ? size : 1);
	if (!area)
		return;
	rr_log_fill(log, area, 0, 0);
	free(area);
}

/* Give an image the key of the trace it sits in. 1: there is an image. */
static int rekey_image(const char *dir)
{
	char path[600];
	uint64_t key;
	int fd, ok;

	snprintf(path, sizeof(path), "%s/.spool/replay.img", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ok = rr_img_key(dir, &key) == 0 && pwrite(fd, &key, sizeof(key), 16) == sizeof(key);
	close(fd);
	return ok;
}

static void open_image(const char *dir, int serial)
{
	struct rr_log *log = NULL;
	uint64_t key;

	if (rr_img_key(dir, &key) < 0 || rr_img_open(dir, key, serial, &log) < 0)
		return;
	rr_log_threads(log);
	rr_log_image_size(log);
	fill(log);
	rr_log_free(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rr_info info; /* 13 KiB: not on the stack */
	struct fuzz_input in;
	struct rr_log *log = NULL;
	char err[512];
	uint64_t inputs;
	unsigned o;
	int serial;

	if (fuzz_unpack(data, size, &in) < 0)
		return 0;
	o = fuzz_opt(&in, 0);
	serial = o & 1;
	/* As spool replay: nothing is loaded from a trace that is not a
	 * recording (which also means it has a metadata file). */
	if (rr_info_read(in.trace_dir, &info) < 0) {
		/* --dump reads any trace */
	} else if (rekey_image(in.trace_dir)) {
		open_image(in.trace_dir, serial);
	} else if (rr_log_load_mode(in.trace_dir, serial, &log, err, sizeof(err)) == 0) {
		rr_log_switches(log);
		rr_log_events(log, &inputs);
		fill(log);
		if ((o & 2) && rr_img_key(in.trace_dir, &inputs) == 0 &&
		    rr_img_write(in.trace_dir, log, inputs) == 0)
			open_image(in.trace_dir, serial);
		rr_log_free(log);
	}
	if (o & 4)
		rr_dump_schedule(in.trace_dir, fuzz_null());
	return 0;
}
