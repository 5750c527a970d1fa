// SPDX-License-Identifier: MIT
/*
 * loss.c - one way to count and to say what a trace is missing.
 *
 * Losses happen in several places: a producer finds its ring full or finds
 * no free ring, the collector sees a sequence gap or a damaged ring, the
 * writer cannot put a packet or a side file on the disk, or the writer never
 * finishes (spool killed, power cut). The writer keeps all of them in the
 * trace's state file (doc/trace-format.md, "The state file and losses"); the
 * run's summary line and every command that reads a trace compute the total
 * and the words from the same struct trace_loss here, so they always say the
 * same thing.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "trace_int.h"
#include "../util/log.h"

/* Saturating: numbers read from a trace may be anything. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

uint64_t trace_loss_events(const struct trace_loss *l)
{
	/* ring_full (the producers' counters) and seq_gaps (the collector's
	 * check) see the same drops from both ends: the larger of the two. */
	/* events no ring ever saw */
	uint64_t outside = sat_add(sat_add(sat_add(l->no_ring, l->fork), l->clone), l->pidns);
	uint64_t n = sat_add(sat_add(l->ring_full > l->seq_gaps ? l->ring_full : l->seq_gaps, outside),
			     sat_add(l->rejected, l->write));

	/* Without a final state, what the packets say may be more. */
	if (l->state != TRACE_STATE_FINISHED && sat_add(l->streams, outside) > n)
		n = sat_add(l->streams, outside);
	/* a cut stream: what the board announced and the host never got
	 * (whole packets, so never also a gap or a discard above) */
	return sat_add(n, l->stream_missing);
}

int trace_loss_incomplete(const struct trace_loss *l)
{
	return trace_loss_events(l) || l->damaged_rings || l->side_files || l->no_proc ||
	       l->still_running || l->stream_cut || l->state == TRACE_STATE_UNFINISHED;
}

struct out {
	char *buf;
	size_t len, o;
};

static __attribute__((format(printf, 2, 3))) void put(struct out *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->o >= b->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->o, b->len - b->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->o += (size_t)n;
}

/*
 * "N events lost (A rings full or gaps, B no free ring, C not written to the
 * disk), D damaged rings, E side files not written, F processes found no
 * process slot ..., G processes were still running when the trace ended
 * ...; the writer did not finish ..." - only the parts that are not zero;
 * "" when nothing is missing.
 */
void trace_loss_describe(const struct trace_loss *l, char *buf, size_t len)
{
	uint64_t ring = l->ring_full > l->seq_gaps ? l->ring_full : l->seq_gaps;
	uint64_t total = trace_loss_events(l);
	/* (total is at least the sum of the parts; rest is what the packets of
	 * a trace whose writer did not finish show beyond its state file) */
	uint64_t parts =
	    sat_add(sat_add(sat_add(ring, sat_add(sat_add(sat_add(l->no_ring, l->fork), l->clone),
						  l->pidns)),
			    sat_add(l->rejected, l->write)),
		    l->stream_missing);
	uint64_t rest = total > parts ? total - parts : 0;
	struct out b = {buf, len, 0};
	const char *sep = "";

	if (!len)
		return;
	buf[0] = 0;
	if (total) {
		put(&b, "%" PRIu64 " events lost (", total);
		if (ring) {
			put(&b, "%" PRIu64 " rings full or gaps", ring);
			sep = ", ";
		}
		if (l->no_ring) {
			put(&b, "%s%" PRIu64 " no free ring", sep, l->no_ring);
			sep = ", ";
		}
		if (l->fork) {
			put(&b, "%s%" PRIu64 " in fork children before their ring", sep, l->fork);
			sep = ", ";
		}
		if (l->pidns) {
			put(&b, "%s%" PRIu64 " in a pid namespace with its own /proc (pids spool "
			    "cannot tell)", sep, l->pidns);
			sep = ", ";
		}
		if (l->clone) {
			put(&b, "%s%" PRIu64 " in threads made by the program's own clone", sep,
			    l->clone);
			sep = ", ";
		}
		if (l->rejected) {
			put(&b, "%s%" PRIu64 " malformed", sep, l->rejected);
			sep = ", ";
		}
		if (l->write) {
			put(&b, "%s%" PRIu64 " not written to the disk", sep, l->write);
			sep = ", ";
		}
		if (l->stream_missing) {
			put(&b, "%sat least %" PRIu64 " not received from the board", sep,
			    l->stream_missing);
			sep = ", ";
		}
		if (rest)
			put(&b, "%s%" PRIu64 " missing from the packets", sep, rest);
		put(&b, ")");
	}
	if (l->damaged_rings)
		put(&b, "%s%" PRIu64 " damaged rings (their later events are unknown)",
		    b.o ? ", " : "", l->damaged_rings);
	if (l->side_files)
		put(&b, "%s%" PRIu64 " side files not written", b.o ? ", " : "", l->side_files);
	if (l->no_proc)
		put(&b,
		    "%s%" PRIu64 " processes found no process slot (more were alive at once "
		    "than --max-procs allows): their maps and command lines are missing, their "
		    "addresses unsymbolized",
		    b.o ? ", " : "", l->no_proc);
	if (l->still_running)
		put(&b,
		    "%s%" PRIu64 " process%s still running when the trace ended: %s events "
		    "from then on are not in it",
		    b.o ? ", " : "", l->still_running, l->still_running == 1 ? " was" : "es were",
		    l->still_running == 1 ? "its" : "their");
	if (l->stream_cut)
		put(&b,
		    "%sthe stream from the board was cut (spool receive): the rest of the trace "
		    "stayed on the board",
		    b.o ? ", " : "");
	if (l->state == TRACE_STATE_UNFINISHED)
		put(&b,
		    "%sits writer did not finish (spool still running, or killed): what came "
		    "after its last whole packet is unknown",
		    b.o ? "; " : "");
	if (b.o >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

void trace_loss_json(const struct trace_loss *l, FILE *out)
{
	char why[512];

	trace_loss_describe(l, why, sizeof(why));
	fprintf(out,
		"\"lost\": %" PRIu64
		", \"incomplete\": %s, \"writer_finished\": %s, \"missing\": \"",
		trace_loss_events(l), trace_loss_incomplete(l) ? "true" : "false",
		l->state == TRACE_STATE_UNFINISHED ? "false" : "true");
	/* the words are spool's own (numbers and fixed text); escaped anyway
	 * so the JSON stays valid whatever they become */
	for (const char *p = why; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		if ((unsigned char)*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void trace_loss_print_missing(const struct trace_loss *l, const char *prefix, FILE *out)
{
	char why[512];

	if (!trace_loss_incomplete(l))
		return;
	trace_loss_describe(l, why, sizeof(why));
	fprintf(out, "%smissing: %s\n", prefix ? prefix : "", why);
}

void trace_loss_print_header(const struct trace_loss *l, const char *dir, const char *prefix,
			     FILE *out)
{
	fprintf(out, "%sspool: %" PRIu64 " events lost, trace in %s/\n", prefix ? prefix : "",
		trace_loss_events(l), dir);
	trace_loss_print_missing(l, prefix, out);
}

/* The value of `key=` in the state file's text, or 0. */
static uint64_t state_u64(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return strtoull(p + klen + 1, NULL, 10);
	return 0;
}

void trace_reader_loss(const struct trace_reader *r, struct trace_loss *out)
{
	char *text = NULL;
	size_t len;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < trace_reader_nstreams(r); i++) {
		const struct trace_stream_info *si = trace_reader_stream(r, i);

		/* discarded (producer side, and packets not written) and seq
		 * gaps see the same losses from two ends: the larger */
		out->streams += si->discarded > si->seq_gaps ? si->discarded : si->seq_gaps;
	}
	/* spool receive's note on a copy whose stream was cut */
	if (trace_reader_file(r, TRACE_STREAM_NAME, &text, &len) == 0) {
		out->stream_cut = state_u64(text, "cut") ? 1 : 0;
		out->stream_missing = out->stream_cut ? state_u64(text, "missing") : 0;
		free(text);
		text = NULL;
	}
	if (trace_reader_file(r, TRACE_STATE_NAME, &text, &len) < 0) {
		/* Older spool wrote no state file: only the packets tell. */
		out->state = TRACE_STATE_UNKNOWN;
		out->ring_full = out->streams;
		return;
	}
	/* Anything but a state file saying "finished" is a writer that did
	 * not finish (killed before it rewrote the "writing" it starts with). */
	out->state =
	    strstr(text, "\nstate=finished\n") && !strncmp(text, "format=spool-state-1\n", 21)
		? TRACE_STATE_FINISHED
		: TRACE_STATE_UNFINISHED;
	out->ring_full = state_u64(text, "ring_full");
	out->no_ring = state_u64(text, "no_ring");
	out->fork = state_u64(text, "fork");
	out->clone = state_u64(text, "clone");
	out->pidns = state_u64(text, "pidns");
	out->seq_gaps = state_u64(text, "seq_gaps");
	out->damaged_rings = state_u64(text, "damaged_rings");
	out->rejected = state_u64(text, "rejected");
	out->write = state_u64(text, "lost_write");
	out->side_files = state_u64(text, "side_files");
	out->no_proc = state_u64(text, "no_proc");
	out->still_running = state_u64(text, "still_running");
	free(text);
}

void trace_reader_loss_read(struct trace_reader *r, struct trace_loss *out)
{
	struct trace_event ev;

	trace_reader_loss(r, out);
	if (out->state == TRACE_STATE_FINISHED)
		return;
	while (trace_reader_next(r, &ev) > 0)
		;
	trace_reader_loss(r, out);
}

void trace_loss_seen_fill(struct trace_loss_seen *seen, struct trace_reader *r)
{
	if (!seen || !r)
		return;
	trace_reader_loss_read(r, &seen->loss);
	seen->set = 1;
}

int trace_loss_end_file_lost(const char *dir, const struct trace_loss *l, const char *what,
			     const char *file)
{
	if (l->state != TRACE_STATE_UNFINISHED)
		return 0;
	log_err("%s has no %s (no \"%s\" file): spool writes them when the program ends, and "
		"this trace's writer did not finish (spool was killed, or still runs): they are "
		"lost",
		dir, what, file);
	return 1;
}

void trace_loss_warn(const char *dir, const struct trace_loss *l)
{
	char why[512];

	if (!trace_loss_incomplete(l))
		return;
	trace_loss_describe(l, why, sizeof(why));
	log_warn("%s is incomplete: %s", dir, why);
}
