// SPDX-License-Identifier: MIT
/*
 * symbolize.c - addresses of traced processes to function, file and line,
 * offline, with elfutils libdwfl.
 *
 * For each pid the maps text recorded in the trace is turned into one Dwfl
 * session: every file-backed ELF mapping is reported with dwfl_report_elf at
 * the address of its offset-0 mapping (the start of its first PT_LOAD), which
 * libdwfl turns into the load bias for PIE executables and shared libraries
 * and ignores for ET_EXEC executables, whose addresses are absolute. Sessions
 * are built on first use of a pid and kept until symbolizer_close.
 *
 * Not thread-safe: one symbolizer per thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "../trace/trace.h"
#include "../trace/untrusted.h"
#include "buildid.h"
#include "debugfile.h"
#include "log.h"
#include "demangle.h"
#include "symbolize.h"

struct sym_proc {
	uint32_t pid;
	Dwfl *dwfl; /* NULL when the pid has no usable maps */
	char *buildids;
	int loaded;
	struct sym_proc *next;
};

struct symbolizer {
	struct trace_reader *r;
	struct sym_proc *procs;
	char **warned; /* paths already warned about: each problem is said once */
	size_t nwarned;
};

/* No network, ever: with DEBUGINFOD_URLS unset, libdwfl's debuginfod hook
 * (reached from dwfl_standard_find_debuginfo) gives up at once. */
static char *sym_debuginfo_path;
static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &sym_debuginfo_path,
};

static int sym_alloc(struct symbolizer **out)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	unsetenv("DEBUGINFOD_URLS");
	/* Separate debug files under SPOOL_DEBUG_DIR too (debugfile.h). */
	sym_debuginfo_path = debugfile_dwfl_path();
	*out = s;
	return 0;
}

int symbolizer_open(struct symbolizer **out, struct trace_reader *r)
{
	int ret = sym_alloc(out);

	if (ret)
		return ret;
	(*out)->r = r;
	return 0;
}

/* Returns 1 the first time `path` is seen, so the caller warns once. */
static int sym_first_warning(struct symbolizer *s, const char *path)
{
	char **nw, *copy;

	for (size_t i = 0; i < s->nwarned; i++)
		if (!strcmp(s->warned[i], path))
			return 0;
	copy = strdup(path);
	nw = realloc(s->warned, (s->nwarned + 1) * sizeof(*nw));
	if (!copy || !nw) {
		free(copy);
		if (nw)
			s->warned = nw;
		return 1; /* out of memory: warning twice is the lesser evil */
	}
	s->warned = nw;
	s->warned[s->nwarned++] = copy;
	return 1;
}

/* The build id recorded for `path` in "<hex> <path>" lines, or NULL. */
static const char *sym_recorded_buildid(const char *list, const char *path, char *hex, size_t len)
{
	size_t plen = strlen(path);

	for (const char *p = list; p && *p;) {
		const char *nl = strchr(p, '\n');
		const char *sp = strchr(p, ' ');
		size_t llen = nl ? (size_t)(nl - p) : strlen(p);

		if (sp && sp < p + llen && (size_t)(p + llen - sp - 1) == plen &&
		    !memcmp(sp + 1, path, plen) && (size_t)(sp - p) < len) {
			memcpy(hex, p, (size_t)(sp - p));
			hex[sp - p] = '\0';
			return hex;
		}
		p += llen;
		if (*p == '\n')
			p++;
	}
	return NULL;
}

/* Check the file against the run (present, same build id) and report it to
 * libdwfl. A module that cannot be used is skipped: its addresses stay raw. */
static void sym_report_module(struct symbolizer *s, struct sym_proc *pr, const char *path,
			      uint64_t base, int deleted)
{
	char now[BUILDID_HEX_MAX], then[BUILDID_HEX_MAX];
	int ret;

	ret = buildid_read(path, now, sizeof(now));
	if (ret == -ENOEXEC)
		return; /* a mapped data file (locale archive, fonts...) */
	if (ret < 0 && ret != -ENODATA) {
		if (sym_first_warning(s, path))
			log_warn("%s: cannot open (%s): its addresses stay unresolved", path,
				 trace_open_strerror(ret));
		return;
	}
	if (sym_recorded_buildid(pr->buildids, path, then, sizeof(then))) {
		if (ret == -ENODATA || strcmp(now, then)) {
			if (sym_first_warning(s, path))
				log_warn("%s: build id differs from the traced run (%s, now %s): "
					 "the file changed since, symbols may be wrong",
					 path, then, ret ? "none" : now);
		}
	} else if (deleted && sym_first_warning(s, path)) {
		log_warn("%s: was deleted during the run, the file on disk may be a different one",
			 path);
	}
	if (!dwfl_report_elf(pr->dwfl, path, path, -1, base, false))
		log_debug("%s: not reported to libdwfl: %s", path, dwfl_errmsg(-1));
}

/* Build the Dwfl session of a pid from its maps text. */
static int sym_load_maps(struct symbolizer *s, struct sym_proc *pr, const char *maps)
{
	struct buildid_map *m;
	char *done = NULL; /* NUL-separated paths already reported */
	size_t done_len = 0;
	int ret = 0;

	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	pr->dwfl = dwfl_begin(&sym_callbacks);
	if (!pr->dwfl) {
		ret = -ENOMEM;
		goto out_free;
	}
	dwfl_report_begin(pr->dwfl);
	for (const char *p = maps; *p;) {
		const char *nl = strchr(p, '\n');
		size_t llen = nl ? (size_t)(nl - p) : strlen(p);
		uint64_t base = 0;
		int seen = 0, have_base = 0;
		char path[sizeof(m->path)];
		int deleted;

		if (buildid_parse_maps_line(p, llen, m) || !buildid_is_file_path(m->path))
			goto next;
		for (const char *d = done; d && d < done + done_len; d += strlen(d) + 1)
			if (!strcmp(d, m->path))
				seen = 1;
		if (seen)
			goto next;
		snprintf(path, sizeof(path), "%s", m->path);
		deleted = m->deleted;
		/* The base is the start of the file's offset-0 mapping; if it
		 * has none (unusual), derive it from its first mapping. */
		base = m->start - m->offset;
		for (const char *q = p; *q;) {
			const char *qnl = strchr(q, '\n');
			size_t qlen = qnl ? (size_t)(qnl - q) : strlen(q);

			if (!buildid_parse_maps_line(q, qlen, m) && !strcmp(m->path, path) &&
			    m->offset == 0 && !have_base) {
				base = m->start;
				have_base = 1;
			}
			q += qlen;
			if (*q == '\n')
				q++;
		}
		{
			size_t plen = strlen(path) + 1;
			char *nd = realloc(done, done_len + plen);

			if (!nd) {
				ret = -ENOMEM;
				goto out_end;
			}
			done = nd;
			memcpy(done + done_len, path, plen);
			done_len += plen;
		}
		sym_report_module(s, pr, path, base, deleted);
next:
		p += llen;
		if (*p == '\n')
			p++;
	}
out_end:
	dwfl_report_end(pr->dwfl, NULL, NULL);
out_free:
	free(done);
	free(m);
	return ret;
}

static struct sym_proc *sym_proc_get(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *pr;
	char name[64], *maps = NULL;
	size_t len;

	for (pr = s->procs; pr; pr = pr->next)
		if (pr->pid == pid)
			break;
	if (!pr) {
		pr = calloc(1, sizeof(*pr));
		if (!pr)
			return NULL;
		pr->pid = pid;
		pr->next = s->procs;
		s->procs = pr;
	}
	if (pr->loaded || !s->r)
		return pr;
	pr->loaded = 1;
	snprintf(name, sizeof(name), "proc/%" PRIu32 ".buildids", pid);
	if (trace_reader_file(s->r, name, &pr->buildids, &len) < 0)
		pr->buildids = NULL; /* older or partial trace: no build-id check */
	snprintf(name, sizeof(name), "proc/%" PRIu32 ".maps", pid);
	if (trace_reader_file(s->r, name, &maps, &len) < 0) {
		snprintf(name, sizeof(name), "pid %" PRIu32, pid);
		if (sym_first_warning(s, name))
			log_warn("trace has no maps for pid %" PRIu32
				 ": its addresses stay unresolved", pid);
		return pr;
	}
	if (sym_load_maps(s, pr, maps) < 0)
		log_warn("pid %" PRIu32 ": out of memory while loading its maps", pid);
	free(maps);
	return pr;
}

int symbolizer_open_maps(struct symbolizer **out, uint32_t pid, const char *maps_text,
			 const char *buildids_text)
{
	struct sym_proc *pr;
	int ret;

	ret = sym_alloc(out);
	if (ret)
		return ret;
	pr = sym_proc_get(*out, pid);
	if (!pr || (buildids_text && !(pr->buildids = strdup(buildids_text)))) {
		ret = -ENOMEM;
		goto out_close;
	}
	pr->loaded = 1;
	ret = sym_load_maps(*out, pr, maps_text);
	if (ret)
		goto out_close;
	return 0;
out_close:
	symbolizer_close(*out);
	*out = NULL;
	return ret;
}

int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t addr, struct sym_info *out)
{
	struct sym_proc *pr = sym_proc_get(s, pid);
	const char *name, *mainfile = NULL, *src;
	Dwfl_Module *mod;
	Dwfl_Line *line;
	GElf_Off off = 0;
	GElf_Sym sym;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	if (!pr || !pr->dwfl)
		return -ENOENT;
	mod = dwfl_addrmodule(pr->dwfl, addr);
	if (!mod)
		return -ENOENT;
	name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	snprintf(out->module, sizeof(out->module), "%s", mainfile ? mainfile : name ? name : "");
	{
		GElf_Addr bias = 0;

		/* For a stripped binary this is all a user has to go on:
		 * "pigz+0x11082" can be fed to objdump or addr2line. */
		if (dwfl_module_getelf(mod, &bias))
			out->module_offset = addr - bias;
	}
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (name) {
		if (demangle_name(name, out->func, sizeof(out->func)))
			snprintf(out->mangled, sizeof(out->mangled), "%s", name);
		out->offset = off;
	}
	line = dwfl_module_getsrc(mod, addr);
	if (line) {
		src = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		if (src) {
			snprintf(out->file, sizeof(out->file), "%s", src);
			out->line = lineno;
		}
	}
	return 0;
}

static const char *sym_basename(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static int sym_format(struct symbolizer *s, uint32_t pid, uint64_t addr, uint64_t at, char *buf,
		      size_t len)
{
	struct sym_info si;
	int n;

	if (!len)
		return 0;
	if (symbolizer_lookup(s, pid, at, &si) < 0 || (!si.func[0] && !si.module[0]))
		n = snprintf(buf, len, "%#" PRIx64, addr);
	else if (!si.func[0])
		n = snprintf(buf, len, "%s+%#" PRIx64, sym_basename(si.module),
			     si.module_offset + (addr - at));
	else if (si.file[0])
		n = snprintf(buf, len, "%s+%#" PRIx64 " (%s:%d)", si.func,
			     si.offset + (addr - at), sym_basename(si.file), si.line);
	else
		n = snprintf(buf, len, "%s+%#" PRIx64 " (%s)", si.func, si.offset + (addr - at),
			     sym_basename(si.module));
	if (n < 0)
		n = 0;
	return (size_t)n >= len ? (int)len - 1 : n;
}

int symbolizer_format(struct symbolizer *s, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	/* A return address: the call is the instruction before it. */
	return sym_format(s, pid, addr, addr ? addr - 1 : 0, buf, len);
}

int symbolizer_format_pc(struct symbolizer *s, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	return sym_format(s, pid, addr, addr, buf, len);
}

void symbolizer_close(struct symbolizer *s)
{
	struct sym_proc *pr, *next;

	if (!s)
		return;
	for (pr = s->procs; pr; pr = next) {
		next = pr->next;
		if (pr->dwfl)
			dwfl_end(pr->dwfl);
		free(pr->buildids);
		free(pr);
	}
	for (size_t i = 0; i < s->nwarned; i++)
		free(s->warned[i]);
	free(s->warned);
	free(s);
}
