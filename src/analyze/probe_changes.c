// SPDX-License-Identifier: MIT
/*
 * probe_changes.c - reading and printing the trace's "probe_changes" side
 * file (probe_changes.h). Its lines, written by spool probe -p
 * (src/probe/probe_live.c): "MONO_NS CHANGE ID OP NAME", ID and OP "-"
 * for an add that placed nothing (NAME is then its spec). Every field is
 * checked: a change word from the list, numbers in range, NAME printed
 * escaped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/trace.h"
#include "../util/escape.h"
#include "probe_changes.h"

#define CHG_MAX_LINES 100000

struct chg {
	uint64_t ns;
	const char *change, *op, *name;
	uint32_t id; /* 0: none */
};

static const char *const chg_words[] = {"add", "add-disabled", "disable",
					"enable", "delete", "covered"};

static const char *chg_word(const char *w)
{
	for (size_t i = 0; i < sizeof(chg_words) / sizeof(chg_words[0]); i++)
		if (!strcmp(w, chg_words[i]))
			return chg_words[i];
	return NULL;
}

/* One line (NUL-terminated, modified in place); 0 if it is well formed. */
static int chg_parse(char *line, struct chg *c)
{
	char *f[4], *end, *p = line;

	for (int i = 0; i < 4; i++) {
		f[i] = p;
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		*p++ = 0;
	}
	errno = 0;
	c->ns = strtoull(f[0], &end, 10);
	if (errno || *end || end == f[0])
		return -EINVAL;
	c->change = chg_word(f[1]);
	if (!c->change)
		return -EINVAL;
	if (!strcmp(f[2], "-")) {
		c->id = 0;
	} else {
		unsigned long v = strtoul(f[2], &end, 10);

		if (*end || end == f[2] || !v || v > UINT32_MAX)
			return -EINVAL;
		c->id = (uint32_t)v;
	}
	if (strlen(f[3]) > 16)
		return -EINVAL;
	c->op = f[3];
	c->name = p;
	return 0;
}

void probe_changes_print(struct trace_reader *r, uint64_t t0, int json, FILE *out)
{
	char *data = NULL, *line, *save = NULL;
	size_t len = 0, n = 0;
	struct chg c;

	if (trace_reader_file(r, "probe_changes", &data, &len) < 0)
		data = NULL;
	if (json)
		fprintf(out, "\"probe_changes\":[");
	for (line = data ? strtok_r(data, "\n", &save) : NULL; line && n < CHG_MAX_LINES;
	     line = strtok_r(NULL, "\n", &save)) {
		int64_t rel;

		if (chg_parse(line, &c) < 0)
			continue;
		if (!t0)
			t0 = c.ns;
		rel = (int64_t)(c.ns - t0);
		if (json) {
			fprintf(out, "%s{\"time_ns\":%llu,\"since_start_ns\":%lld,\"change\":\"%s\",",
				n ? "," : "", (unsigned long long)c.ns, (long long)rel, c.change);
			fprintf(out, "\"id\":%u,\"probe\":", c.id);
			escape_json_str(out, c.op);
			fprintf(out, ",\"%s\":", c.id ? "function" : "spec");
			escape_json_str(out, c.name);
			fputc('}', out);
		} else {
			char id[16] = "-";

			if (c.id)
				snprintf(id, sizeof(id), "%u", c.id);
			if (!n)
				fprintf(out, "\nprobes changed while attached (s since the first "
					     "event):\n");
			fprintf(out, "  %+10.3f  %-12s %6s %-6s %s\n", rel / 1e9, c.change, id,
				escape_str(c.op), escape_str(c.name));
		}
		n++;
	}
	if (json)
		fprintf(out, "],");
	free(data);
}
