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
 * Lookups are cached, because a report asks for the same few addresses
 * millions of times (every call's caller) and libdwfl's answer is slow: a
 * symbol lookup in a module without line info scans its whole symbol table.
 * Two levels: (pid, address) -> the answer, and (module, offset in the
 * module) -> function, file and line, so that forked processes and several
 * runs of the same library share the work. Strings are interned once. The
 * memory is bounded by the number of distinct addresses a report asks
 * about, never by the number of events.
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
#include "sysroot.h"

struct sym_proc {
	uint32_t pid;
	Dwfl *dwfl; /* NULL when the pid has no usable maps */
	char *buildids;
	int loaded;
	struct sym_proc *next;
	/* the images of this pid that exec'd away (proc/<pid>.exec<K>.*),
	 * the last one first: an address the pid's last image does not map is
	 * looked up in them, in that order */
	struct sym_proc *older;
};

/* Images of one pid that exec'd away read from a trace, at most (a
 * reader's memory is bounded whatever the trace holds). */
#define SYM_MAX_EXECS 64

/* An interned string: equal strings share one copy, compared by pointer. */
struct sym_str {
	struct sym_str *next;
	uint64_t hash;
	char s[];
};

/* (module, module offset) -> what libdwfl says about it. */
struct sym_modent {
	const char *module; /* interned: the key is the pointer */
	uint64_t module_offset;
	const char *func, *file; /* interned, "" when absent; func demangled */
	const char *mangled;	 /* interned: the ELF name when it differs from func, else "" */
	uint64_t offset;
	int line;
	int used;
};

/* (pid, address) -> the lookup's result. */
struct sym_addrent {
	uint64_t addr;
	uint32_t pid;
	int used;
	int rc;		    /* symbolizer_lookup's return */
	const char *module; /* interned */
	uint64_t module_offset;
	int in_module; /* a (module, module_offset) entry holds func, file, line */
};

struct symbolizer {
	struct trace_reader *r;
	struct sym_proc *procs;
	struct sym_str **strs; /* chained hash of interned strings */
	size_t nstrs, cap_strs;
	struct sym_addrent *addrs; /* open addressing, power-of-two capacity */
	size_t naddrs, cap_addrs;
	struct sym_modent *mods;
	size_t nmods, cap_mods;
	int nocache;   /* SPOOL_SYMBOL_CACHE=0: every lookup asks libdwfl (tests) */
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
	{
		const char *c = getenv("SPOOL_SYMBOL_CACHE");

		/* The tests compare reports with and without the cache. */
		s->nocache = c && !strcmp(c, "0");
	}
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

/* With --sysroot (sysroot.h): the file is the board's, found inside the
 * root, or the root's separate debug file for the recorded build id when
 * the root has only that. A file whose build id is not the one the trace
 * recorded is another build: it is refused, never used to name anything
 * (its addresses are printed raw), and that is said once. */
static void sym_report_sysroot(struct symbolizer *s, struct sym_proc *pr, const char *path,
			       uint64_t base)
{
	char now[BUILDID_HEX_MAX], then[BUILDID_HEX_MAX], fdpath[64];
	const char *root = sysroot_get();
	int have_then = sym_recorded_buildid(pr->buildids, path, then, sizeof(then)) != NULL;
	int fd, ret, debug = 0;

	fd = sysroot_open(path);
	if ((fd == -ENOENT || fd == -ENODEV) && have_then) {
		int dfd = sysroot_open_debug(then);

		if (dfd >= 0) {
			fd = dfd;
			debug = 1;
		}
	}
	if (fd < 0) {
		if (sym_first_warning(s, path))
			log_warn("%s: not in the sysroot %s (%s): its addresses stay unresolved",
				 path, root, trace_open_strerror(fd));
		return;
	}
	ret = buildid_read_fd(fd, now, sizeof(now));
	if (ret == -ENOEXEC) {
		close(fd); /* a mapped data file (locale archive, fonts...) */
		return;
	}
	if (have_then && (ret < 0 || strcmp(now, then))) {
		if (sym_first_warning(s, path))
			log_warn("%s: the sysroot's copy (%s%s) is another build (build id %s, the "
				 "traced run had %s): not used for names, its addresses are printed "
				 "raw",
				 path, root, path, ret ? "none" : now, then);
		close(fd);
		return;
	}
	if (!have_then && sym_first_warning(s, path))
		log_warn("%s: the trace recorded no build id for it, so the sysroot's copy cannot "
			 "be checked: names from it may be wrong",
			 path);
	if (debug)
		log_debug("%s: named from the sysroot's debug file for build id %s", path, then);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	/* On success libdwfl owns fd (dwfl_end closes it); the module keeps
	 * the trace's path as its name. */
	if (!dwfl_report_elf(pr->dwfl, path, fdpath, fd, base, false)) {
		log_debug("%s: not reported to libdwfl: %s", path, dwfl_errmsg(-1));
		close(fd);
	}
}

/* Check the file against the run (present, same build id) and report it to
 * libdwfl. A module that cannot be used is skipped: its addresses stay raw. */
static void sym_report_module(struct symbolizer *s, struct sym_proc *pr, const char *path,
			      uint64_t base, int deleted)
{
	char now[BUILDID_HEX_MAX], then[BUILDID_HEX_MAX];
	int ret;

	if (sysroot_get()) {
		sym_report_sysroot(s, pr, path, base);
		return;
	}

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

/* The images of pr's pid that exec'd away, if the trace has them. */
static void sym_load_execs(struct symbolizer *s, struct sym_proc *pr)
{
	char name[80], *maps;
	size_t len;

	for (unsigned k = 0; k < SYM_MAX_EXECS; k++) {
		struct sym_proc *o;

		snprintf(name, sizeof(name), "proc/%" PRIu32 ".exec%u.maps", pr->pid, k);
		maps = NULL;
		if (trace_reader_file(s->r, name, &maps, &len) < 0)
			break;
		o = calloc(1, sizeof(*o));
		if (!o) {
			free(maps);
			break;
		}
		o->pid = pr->pid;
		o->loaded = 1;
		snprintf(name, sizeof(name), "proc/%" PRIu32 ".exec%u.buildids", pr->pid, k);
		if (trace_reader_file(s->r, name, &o->buildids, &len) < 0)
			o->buildids = NULL;
		if (sym_load_maps(s, o, maps) < 0)
			log_warn("pid %" PRIu32 ": out of memory while loading the maps of an "
				 "image it exec'd away from",
				 pr->pid);
		free(maps);
		o->older = pr->older; /* the later ones first */
		pr->older = o;
	}
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
	sym_load_execs(s, pr);
	snprintf(name, sizeof(name), "proc/%" PRIu32 ".buildids", pid);
	if (trace_reader_file(s->r, name, &pr->buildids, &len) < 0)
		pr->buildids = NULL; /* older or partial trace: no build-id check */
	snprintf(name, sizeof(name), "proc/%" PRIu32 ".maps", pid);
	if (trace_reader_file(s->r, name, &maps, &len) < 0) {
		if (pr->older)
			return pr; /* only its earlier images' */
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

static uint64_t sym_hash(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull; /* FNV-1a */
	return h;
}

static uint64_t sym_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* The interned copy of str, NULL when out of memory. */
static const char *sym_intern(struct symbolizer *s, const char *str)
{
	size_t len = strlen(str);
	uint64_t h = sym_hash(str, len, 0xcbf29ce484222325ull);
	struct sym_str *e;

	if (s->nstrs + 1 > s->cap_strs) {
		size_t cap = s->cap_strs ? 2 * s->cap_strs : 256;
		struct sym_str **v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; i < s->cap_strs; i++)
			for (struct sym_str *n, *x = s->strs[i]; x; x = n) {
				n = x->next;
				x->next = v[x->hash & (cap - 1)];
				v[x->hash & (cap - 1)] = x;
			}
		free(s->strs);
		s->strs = v;
		s->cap_strs = cap;
	}
	for (e = s->strs[h & (s->cap_strs - 1)]; e; e = e->next)
		if (e->hash == h && !strcmp(e->s, str))
			return e->s;
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	e->hash = h;
	memcpy(e->s, str, len + 1);
	e->next = s->strs[h & (s->cap_strs - 1)];
	s->strs[h & (s->cap_strs - 1)] = e;
	s->nstrs++;
	return e->s;
}

/* Grow an open-addressing table to keep it at most half full; rehash is
 * the caller's (entries move). Returns 0 or -ENOMEM. */
static int sym_grow(void **tab, size_t *cap, size_t n, size_t elem, void **old, size_t *oldcap)
{
	void *v;

	*old = NULL;
	*oldcap = 0;
	if (2 * (n + 1) <= *cap)
		return 0;
	v = calloc(*cap ? 2 * *cap : 1024, elem);
	if (!v)
		return -ENOMEM;
	*old = *tab;
	*oldcap = *cap;
	*tab = v;
	*cap = *cap ? 2 * *cap : 1024;
	return 0;
}

static struct sym_modent *sym_mod_slot(struct sym_modent *v, size_t cap, const char *module,
				       uint64_t off)
{
	for (size_t i = sym_mix((uint64_t)(uintptr_t)module ^ sym_mix(off)) & (cap - 1);;
	     i = (i + 1) & (cap - 1))
		if (!v[i].used || (v[i].module == module && v[i].module_offset == off))
			return &v[i];
}

static struct sym_addrent *sym_addr_slot(struct sym_addrent *v, size_t cap, uint32_t pid,
					 uint64_t addr)
{
	for (size_t i = sym_mix(addr ^ (uint64_t)pid << 48) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!v[i].used || (v[i].pid == pid && v[i].addr == addr))
			return &v[i];
}

/* The (module, offset) entry, looked up in libdwfl the first time. Its
 * pointer stays valid until the table grows: callers copy what they need.
 * NULL when out of memory. */
static struct sym_modent *sym_mod_get(struct symbolizer *s, Dwfl_Module *mod, uint64_t addr,
				      const char *module, uint64_t module_offset)
{
	struct sym_modent *e, *old;
	size_t oldcap;
	const char *name, *src;
	Dwfl_Line *line;
	GElf_Off off = 0;
	GElf_Sym sym;
	int lineno = 0;

	if (sym_grow((void **)&s->mods, &s->cap_mods, s->nmods, sizeof(*s->mods), (void **)&old,
		     &oldcap) < 0)
		return NULL;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*sym_mod_slot(s->mods, s->cap_mods, old[i].module, old[i].module_offset) =
			    old[i];
	free(old);
	e = sym_mod_slot(s->mods, s->cap_mods, module, module_offset);
	if (e->used)
		return e;
	e->module = module;
	e->module_offset = module_offset;
	e->func = e->file = e->mangled = "";
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	/* The agent's interposers are renamed spool_i_NAME for the entry stub
	 * exported as NAME (scripts/agent-stubs.sh): a user reads the name of
	 * the call the program made. */
	if (name && !strncmp(name, "spool_i_", 8) && module && strstr(module, "libspool-agent"))
		name += 8;
	if (name) {
		char dm[256];

		/* demangled for the reports, the ELF name kept beside it */
		if (demangle_name(name, dm, sizeof(dm))) {
			if (!(e->func = sym_intern(s, dm)) || !(e->mangled = sym_intern(s, name)))
				return NULL;
		} else if (!(e->func = sym_intern(s, name))) {
			return NULL;
		}
	}
	e->offset = name ? off : 0;
	line = dwfl_module_getsrc(mod, addr);
	src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (src) {
		if (!(e->file = sym_intern(s, src)))
			return NULL;
		e->line = lineno;
	}
	e->used = 1;
	s->nmods++;
	return e;
}

/* Ask libdwfl (through the module cache) and fill the (pid, addr) entry e.
 * Returns 0, or -ENOMEM (e is left unused). */
static int sym_resolve(struct symbolizer *s, uint32_t pid, uint64_t addr, struct sym_addrent *e)
{
	struct sym_proc *pr = sym_proc_get(s, pid);
	const char *name, *mainfile = NULL;
	struct sym_modent *me;
	Dwfl_Module *mod;
	GElf_Addr bias = 0;

	e->rc = -ENOENT;
	e->module = "";
	e->module_offset = 0;
	e->in_module = 0;
	mod = pr && pr->dwfl ? dwfl_addrmodule(pr->dwfl, addr) : NULL;
	/* not mapped in the pid's last image: an image it exec'd away from
	 * (the later first) */
	for (struct sym_proc *o = pr ? pr->older : NULL; !mod && o; o = o->older)
		mod = o->dwfl ? dwfl_addrmodule(o->dwfl, addr) : NULL;
	if (!mod)
		return 0;
	e->rc = 0;
	name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	/* The name is the trace's path; the main file may be a sysroot's
	 * copy opened by descriptor (/proc/self/fd/N). */
	e->module = sym_intern(s, name ? name : mainfile ? mainfile : "");
	if (!e->module)
		return -ENOMEM;
	/* For a stripped binary this is all a user has to go on:
	 * "pigz+0x11082" can be fed to objdump or addr2line. */
	if (dwfl_module_getelf(mod, &bias))
		e->module_offset = addr - bias;
	me = sym_mod_get(s, mod, addr, e->module, e->module_offset);
	if (!me)
		return -ENOMEM;
	/* Only a flag: sym_fill finds the entry again by its key, because
	 * the module table moves when it grows. */
	e->in_module = 1;
	return 0;
}

static void sym_fill(struct symbolizer *s, const struct sym_addrent *e, struct sym_info *out)
{
	const struct sym_modent *me;

	memset(out, 0, sizeof(*out));
	snprintf(out->module, sizeof(out->module), "%s", e->module);
	out->module_offset = e->module_offset;
	if (!e->in_module)
		return;
	me = sym_mod_slot(s->mods, s->cap_mods, e->module, e->module_offset);
	snprintf(out->func, sizeof(out->func), "%s", me->func);
	snprintf(out->mangled, sizeof(out->mangled), "%s", me->mangled);
	out->offset = me->offset;
	snprintf(out->file, sizeof(out->file), "%s", me->file);
	out->line = me->line;
}

int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t addr, struct sym_info *out)
{
	struct sym_addrent *e, *old, tmp;
	size_t oldcap;

	memset(out, 0, sizeof(*out));
	if (s->nocache) {
		/* Forget every answer: this lookup goes to libdwfl. */
		if (s->addrs)
			memset(s->addrs, 0, s->cap_addrs * sizeof(*s->addrs));
		if (s->mods)
			memset(s->mods, 0, s->cap_mods * sizeof(*s->mods));
		s->naddrs = s->nmods = 0;
	}
	if (sym_grow((void **)&s->addrs, &s->cap_addrs, s->naddrs, sizeof(*s->addrs), (void **)&old,
		     &oldcap) < 0)
		goto out_uncached;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*sym_addr_slot(s->addrs, s->cap_addrs, old[i].pid, old[i].addr) = old[i];
	free(old);
	e = sym_addr_slot(s->addrs, s->cap_addrs, pid, addr);
	if (!e->used) {
		if (sym_resolve(s, pid, addr, e) < 0)
			goto out_uncached;
		e->pid = pid;
		e->addr = addr;
		e->used = 1;
		s->naddrs++;
	}
	sym_fill(s, e, out);
	return e->rc;
out_uncached:
	/* Out of memory: answer without the cache when possible. */
	memset(&tmp, 0, sizeof(tmp));
	if (sym_resolve(s, pid, addr, &tmp) < 0)
		return -ENOMEM;
	sym_fill(s, &tmp, out);
	return tmp.rc;
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
		for (struct sym_proc *o = pr->older, *on; o; o = on) {
			on = o->older;
			if (o->dwfl)
				dwfl_end(o->dwfl);
			free(o->buildids);
			free(o);
		}
		if (pr->dwfl)
			dwfl_end(pr->dwfl);
		free(pr->buildids);
		free(pr);
	}
	for (size_t i = 0; i < s->cap_strs; i++)
		for (struct sym_str *n, *x = s->strs[i]; x; x = n) {
			n = x->next;
			free(x);
		}
	free(s->strs);
	free(s->addrs);
	free(s->mods);
	for (size_t i = 0; i < s->nwarned; i++)
		free(s->warned[i]);
	free(s->warned);
	free(s);
}
