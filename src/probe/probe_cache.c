// SPDX-License-Identifier: MIT
/*
 * probe_cache.c - the plan cache of `spool probe` (probe_cache.h): saving a
 * plan after planning, and loading it, checked field by field, instead of
 * planning again.
 *
 * File layout (host byte order: the key names the architecture and the
 * sizes of the structures, and spool's own build id pins their layout):
 *   "SPLPLAN1" u32 format, u32 key_len, u64 payload_len, u64 payload_fnv
 *   key bytes
 *   payload: u32 nmsgs  {str line}
 *            u32 nlibs  {str path, str sig}
 *            u32 nmods  {str path, str name, u32 is_main, u32 stripped,
 *                        str sig, str debug file ("" none), u32 nsyms,
 *                        {str name, u64 addr, u64 size}}
 *            u32 ndefs  {struct probe_def (pointers zero), u8 has_code,
 *                        [code: u32 len, bytes, u32 nrel, relocs, u32 nskip,
 *                        skips, u32 nmark, marks]}
 * str = u32 length + bytes (no NUL). sig = "b:" + the file's build id.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/buildid.h"
#include "../util/debugfile.h"
#include "../util/log.h"
#include "probe_cache.h"

#define CACHE_MAGIC "SPLPLAN1"
#define CACHE_FORMAT 2u
#define CACHE_MAX_FILE (512ull << 20) /* larger is not a plan of ours */
#define CACHE_MAX_STR (1u << 20)
#define CACHE_MAX_MODS 4096u

struct cache_hdr {
	char magic[8];
	uint32_t format;
	uint32_t key_len;
	uint64_t payload_len;
	uint64_t payload_fnv;
};

static char *cache_msgs;
static size_t cache_msgs_len;

/* FNV-1a over 8-byte words (then the tail bytes): a check against damage,
 * not against forgery (the owner and mode checks are that). */
static uint64_t cache_fnv(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* "b:<build id>" of the file at path: what a module must still have. */
static int cache_sig(const char *path, char *out, size_t len)
{
	char hex[BUILDID_HEX_MAX];
	int rc = buildid_read(path, hex, sizeof(hex));

	if (rc < 0)
		return rc;
	return snprintf(out, len, "b:%s", hex) < (int)len ? 0 : -ENOSPC;
}

/* The separate debug file planning would use for path, "" for none. */
static void cache_debugfile(const char *path, char *out, size_t len)
{
	if (debugfile_find(path, out, len) < 0)
		out[0] = 0;
}

int probe_cache_spec_ok(const char *spec)
{
	return !strncmp(spec, "func:", 5) || !strncmp(spec, "block:", 6) ||
	       !strncmp(spec, "branch:", 7);
}

int probe_cache_key(const struct probe_mgr *m, const char *const *specs, size_t nspecs,
		    int quiet, char **key)
{
	char sig[BUILDID_HEX_MAX + 8], self[PATH_MAX];
	const char *llp = getenv("LD_LIBRARY_PATH"), *dd = getenv(DEBUGFILE_ENV);
	const char *dbgenv = getenv("SPOOL_DEBUG");
	struct stat st;
	size_t sz = 0;
	FILE *f;
	ssize_t n;
	int rc;

	*key = NULL;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -ENODATA;
	self[n] = 0;
	if (cache_sig(self, sig, sizeof(sig)) < 0)
		return -ENODATA; /* spool without a build id: its layout unknown */
	f = open_memstream(key, &sz);
	if (!f)
		return -ENOMEM;
	fprintf(f, "spool plan cache %u x86_64 def %zu code %zu area %u\nspool %s\n", CACHE_FORMAT,
		sizeof(struct probe_def), sizeof(struct x86_code), PROBE_AREA_VERSION, sig);
	rc = cache_sig(m->exe, sig, sizeof(sig));
	fprintf(f, "exe %zu:%s %s\nexits %d quiet %d\n", strlen(m->exe), m->exe,
		rc < 0 ? "-" : sig, m->exits, quiet);
	for (size_t i = 0; i < nspecs; i++)
		fprintf(f, "spec %zu:%s\n", strlen(specs[i]), specs[i]);
	fprintf(f, "LD_LIBRARY_PATH %zu:%s\n", llp ? strlen(llp) : 0, llp ? llp : "");
	fprintf(f, "%s %zu:%s\n", DEBUGFILE_ENV, dd ? strlen(dd) : 0, dd ? dd : "");
	/* SPOOL_DEBUG lists every function with data in it */
	fprintf(f, "SPOOL_DEBUG %zu:%s\n", dbgenv ? strlen(dbgenv) : 0, dbgenv ? dbgenv : "");
	if (stat("/etc/ld.so.cache", &st) == 0)
		fprintf(f, "ld.so.cache %llu %llu %lld %lld.%09ld\n", (unsigned long long)st.st_dev,
			(unsigned long long)st.st_ino, (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	if (fclose(f)) {
		free(*key);
		*key = NULL;
		return -ENOMEM;
	}
	if (rc < 0 || strlen(*key) != sz) { /* no build id, or a NUL in a spec */
		free(*key);
		*key = NULL;
		return -ENODATA;
	}
	return 0;
}

/* $XDG_CACHE_HOME/spool/plans or ~/.cache/spool/plans, into out. */
static int cache_dir(char *out, size_t len)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (x && x[0] == '/')
		n = snprintf(out, len, "%s/spool/plans", x);
	else if (home && home[0] == '/')
		n = snprintf(out, len, "%s/.cache/spool/plans", home);
	else
		return -ENOENT;
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int cache_path(const char *key, char *out, size_t len)
{
	char dir[PATH_MAX];
	int rc = cache_dir(dir, sizeof(dir)), n;

	if (rc < 0)
		return rc;
	n = snprintf(out, len, "%s/%016llx.plan", dir,
		     (unsigned long long)cache_fnv(key, strlen(key)));
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* Owned by us, writable by nobody else: another user's file (or one in a
 * directory another user could swap it in) could hold any trampoline. */
static int cache_trusted(const struct stat *st, int dir)
{
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return 0;
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* --- reading ------------------------------------------------------------ */

struct cache_rd {
	const uint8_t *p;
	size_t n, off;
	int bad;
};

static int rd_bytes(struct cache_rd *r, void *out, size_t len)
{
	if (r->bad || len > r->n - r->off) {
		r->bad = 1;
		return -1;
	}
	memcpy(out, r->p + r->off, len);
	r->off += len;
	return 0;
}

static uint32_t rd_u32(struct cache_rd *r)
{
	uint32_t v = 0;

	rd_bytes(r, &v, sizeof(v));
	return v;
}

static uint64_t rd_u64(struct cache_rd *r)
{
	uint64_t v = 0;

	rd_bytes(r, &v, sizeof(v));
	return v;
}

/* A string without NUL bytes, malloc'd and terminated; NULL if bad. */
static char *rd_str(struct cache_rd *r)
{
	uint32_t len = rd_u32(r);
	char *s;

	if (r->bad || len > CACHE_MAX_STR || len > r->n - r->off ||
	    memchr(r->p + r->off, 0, len)) {
		r->bad = 1;
		return NULL;
	}
	s = malloc((size_t)len + 1);
	if (!s) {
		r->bad = 1;
		return NULL;
	}
	memcpy(s, r->p + r->off, len);
	s[len] = 0;
	r->off += len;
	return s;
}

/* A count of items of at least `each` bytes that the rest can hold. */
static uint32_t rd_count(struct cache_rd *r, size_t each, uint32_t max)
{
	uint32_t n = rd_u32(r);

	if (r->bad || n > max || (uint64_t)n * each > r->n - r->off) {
		r->bad = 1;
		return 0;
	}
	return n;
}

/* A trampoline as wr_code wrote it: each array's used part. */
static int rd_code(struct cache_rd *r, struct x86_code *c)
{
	c->len = rd_u32(r);
	if (c->len > X86_CODE_MAX)
		r->bad = 1;
	rd_bytes(r, c->buf, c->len);
	c->nrel = rd_u32(r);
	if (c->nrel > X86_RELOC_MAX)
		r->bad = 1;
	rd_bytes(r, c->rel, c->nrel * sizeof(c->rel[0]));
	c->nskip = rd_u32(r);
	if (c->nskip > X86_SKIP_MAX)
		r->bad = 1;
	rd_bytes(r, c->skip, c->nskip * sizeof(c->skip[0]));
	c->nmark = rd_u32(r);
	if (c->nmark > X86_MARK_MAX)
		r->bad = 1;
	rd_bytes(r, c->mark, c->nmark * sizeof(c->mark[0]));
	return r->bad ? -1 : 0;
}

static int cache_nul_in(const char *s, size_t len)
{
	return memchr(s, 0, len) != NULL;
}

/* The trampoline of a def: everything fill_area and the agent use stays
 * inside its arrays. */
static int cache_code_ok(const struct x86_code *c)
{
	if (c->len > X86_CODE_MAX || c->nrel > X86_RELOC_MAX || c->nskip > X86_SKIP_MAX ||
	    c->nmark > X86_MARK_MAX)
		return 0;
	for (uint32_t i = 0; i < c->nrel; i++) {
		const struct probe_area_reloc *x = &c->rel[i];
		uint32_t w = x->type == PROBE_R_REL32 ? 4 : x->type == PROBE_R_HANDLER64 ? 8 : 0;

		if (!w || x->at > c->len || c->len - x->at < w)
			return 0;
		if (x->type == PROBE_R_REL32 && (x->next < x->at + 4 || x->next > c->len))
			return 0;
		if (x->type == PROBE_R_HANDLER64 && (x->target == 0 || x->target >= PROBE_H_MAX))
			return 0;
	}
	for (uint32_t i = 0; i < c->nskip; i++)
		if (c->skip[i].at > c->len || c->skip[i].end > c->len || c->len - c->skip[i].at < 5)
			return 0;
	for (uint32_t i = 0; i < c->nmark; i++)
		if (c->mark[i].off > c->len)
			return 0;
	return 1;
}

static int cache_def_ok(const struct probe_def *d, uint32_t i, const struct probe_mgr *m,
			size_t ndefs)
{
	if (d->id != i + 1 || d->module >= m->nmods || d->sym >= m->mods[d->module].nsyms)
		return 0;
	if (d->method > PROBE_M_RIDE || d->handler >= PROBE_H_MAX)
		return 0;
	if (d->patch_len > PROBE_MAX_PATCH || d->point > PROBE_PT_BEXIT || d->cc > 15)
		return 0;
	if (!cache_nul_in(d->why, sizeof(d->why)) || !cache_nul_in(d->insn, sizeof(d->insn)) ||
	    !cache_nul_in(d->point_name, sizeof(d->point_name)))
		return 0;
	if (d->shared > ndefs || d->carry > ndefs || d->ret_id > ndefs)
		return 0;
	/* a variable probe's recipes are not in the cache */
	return d->handler != PROBE_H_VAR && !d->nvars && !d->time_only;
}

static void cache_free_mods(struct probe_module *mods, size_t n)
{
	for (size_t i = 0; mods && i < n; i++)
		probe_module_close(&mods[i]);
	free(mods);
}

/* Parse and check the payload into m's fields; 0 if it is not usable.
 * check_files: compare the libraries' and modules' build ids and debug
 * files with the files now (off only for the fuzzing harness). */
static int cache_parse(struct probe_mgr *m, struct cache_rd *r, char **msgs, size_t *msgs_len,
		       int check_files)
{
	struct probe_module *mods = NULL;
	struct probe_def *defs = NULL;
	char **libs = NULL;
	uint32_t nmsg, nlibs = 0, nmods = 0, ndefs = 0, i;
	char sig[BUILDID_HEX_MAX + 8], dbg[PATH_MAX];
	size_t sz = 0;
	FILE *f = open_memstream(msgs, &sz);
	int ok = 0;

	if (!f)
		return 0;
	nmsg = rd_count(r, 4, 1u << 16);
	for (i = 0; i < nmsg && !r->bad; i++) {
		char *s = rd_str(r);

		if (s)
			fputs(s, f);
		free(s);
	}
	nlibs = rd_count(r, 8, CACHE_MAX_MODS);
	libs = calloc(nlibs + 1, sizeof(*libs));
	for (i = 0; libs && i < nlibs && !r->bad; i++) {
		char *s;

		libs[i] = rd_str(r);
		s = rd_str(r);
		if (!r->bad && (libs[i][0] != '/' ||
				(check_files &&
				 (cache_sig(libs[i], sig, sizeof(sig)) < 0 || strcmp(sig, s)))))
			r->bad = 1; /* a library changed (or is gone) since */
		free(s);
	}
	if (!libs)
		goto out;
	nmods = rd_count(r, 24, CACHE_MAX_MODS);
	mods = calloc(nmods + 1, sizeof(*mods));
	for (i = 0; mods && i < nmods; i++)
		mods[i].fd = mods[i].dbg_fd = -1;
	for (i = 0; mods && i < nmods && !r->bad; i++) {
		struct probe_module *mod = &mods[i];
		char *s, *dp;
		uint32_t ns;

		mod->path = rd_str(r);
		mod->name = rd_str(r);
		mod->is_main = rd_u32(r) != 0;
		mod->stripped = rd_u32(r) != 0;
		s = rd_str(r);
		dp = rd_str(r);
		if (!r->bad && (mod->path[0] != '/' || (mod->is_main && strcmp(mod->path, m->exe))))
			r->bad = 1;
		if (!r->bad && check_files) {
			cache_debugfile(mod->path, dbg, sizeof(dbg));
			if (cache_sig(mod->path, sig, sizeof(sig)) < 0 || strcmp(sig, s) ||
			    strcmp(dbg, dp))
				r->bad = 1;
		}
		free(s);
		free(dp);
		ns = rd_count(r, 20, 1u << 24);
		mod->syms = calloc(ns + 1, sizeof(*mod->syms));
		if (!mod->syms)
			r->bad = 1;
		for (uint32_t k = 0; k < ns && !r->bad; k++) {
			mod->syms[k].name = rd_str(r);
			mod->syms[k].addr = rd_u64(r);
			mod->syms[k].size = rd_u64(r);
			mod->nsyms = k + 1;
		}
	}
	if (!mods || r->bad)
		goto out;
	m->mods = mods;
	m->nmods = nmods; /* for cache_def_ok; taken back below if bad */
	ndefs = rd_count(r, sizeof(struct probe_def) + 1, 1u << 26);
	defs = calloc(ndefs + 1, sizeof(*defs));
	for (i = 0; defs && i < ndefs && !r->bad; i++) {
		struct probe_def *d = &defs[i];
		uint8_t has_code = 0;

		rd_bytes(r, d, sizeof(*d));
		d->code = NULL;
		d->vars = NULL;
		d->spec = NULL;
		rd_bytes(r, &has_code, 1);
		if (has_code && !r->bad) {
			d->code = calloc(1, sizeof(*d->code));
			if (!d->code || rd_code(r, d->code) < 0 || !cache_code_ok(d->code))
				r->bad = 1;
		}
		if (!r->bad && !cache_def_ok(d, i, m, ndefs))
			r->bad = 1;
		if (!r->bad && d->method == PROBE_M_JUMP && !d->shared &&
		    (!d->code || d->patch_len < 5))
			r->bad = 1;
	}
	if (!defs || r->bad || r->off != r->n)
		goto out;
	m->defs = defs;
	m->ndefs = m->defs_cap = ndefs;
	m->libs = libs;
	m->nlibs = nlibs;
	m->libs_resolved = 1;
	defs = NULL;
	libs = NULL;
	mods = NULL;
	ok = 1;
out:
	if (!ok) {
		m->mods = NULL;
		m->nmods = 0;
	}
	if (fclose(f) || !ok) {
		free(*msgs);
		*msgs = NULL;
		ok = 0;
	} else {
		*msgs_len = sz;
	}
	for (i = 0; defs && i < ndefs; i++)
		free(defs[i].code);
	free(defs);
	cache_free_mods(mods, nmods);
	for (i = 0; libs && i < nlibs; i++)
		free(libs[i]);
	free(libs);
	return ok;
}

int probe_cache_load_buf(struct probe_mgr *m, const char *key, const void *data, size_t len,
			 int check_files, char **msgs, size_t *msgs_len, const char **why)
{
	const uint8_t *buf = data;
	size_t klen = strlen(key);
	struct cache_hdr h;
	struct cache_rd r;

	*msgs = NULL;
	*msgs_len = 0;
	*why = "not this run's (another key or format)";
	if (m->nmods || m->ndefs || len < sizeof(h) + klen)
		return 0;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, CACHE_MAGIC, 8) || h.format != CACHE_FORMAT || h.key_len != klen ||
	    memcmp(buf + sizeof(h), key, klen) || h.payload_len != len - sizeof(h) - klen)
		return 0;
	r.p = buf + sizeof(h) + klen;
	r.n = (size_t)h.payload_len;
	r.off = 0;
	r.bad = 0;
	if (cache_fnv(r.p, r.n) != h.payload_fnv) {
		*why = "checksum wrong (damaged)";
		return 0;
	}
	if (!cache_parse(m, &r, msgs, msgs_len, check_files)) {
		*why = "a field out of range, or a file changed since";
		return 0;
	}
	return 1;
}

int probe_cache_load(struct probe_mgr *m, const char *key)
{
	char path[PATH_MAX], dir[PATH_MAX], *msgs = NULL;
	const char *why = "";
	struct stat st;
	uint8_t *buf = NULL;
	size_t klen = strlen(key), msgs_len = 0, got = 0;
	int fd = -1, ok = 0;

	if (m->nmods || m->ndefs || cache_dir(dir, sizeof(dir)) < 0 ||
	    cache_path(key, path, sizeof(path)) < 0)
		return 0;
	if (lstat(dir, &st) < 0 || !cache_trusted(&st, 1))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			log_debug("probe: plan cache %s is a symlink: refused", path);
		return 0;
	}
	if (fstat(fd, &st) < 0 || !cache_trusted(&st, 0) || (uint64_t)st.st_size > CACHE_MAX_FILE ||
	    (size_t)st.st_size < sizeof(struct cache_hdr) + klen) {
		log_debug("probe: plan cache %s refused (owner, mode or size)", path);
		goto out;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf)
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	ok = probe_cache_load_buf(m, key, buf, (size_t)st.st_size, 1, &msgs, &msgs_len, &why);
	if (ok != 1) {
		log_debug("probe: plan cache %s: %s: planning afresh", path, why);
		ok = 0;
		goto out;
	}
	/* its mtime is its last use: the pruning's order (probe_cache_prune.c) */
	if (futimens(fd, NULL) < 0)
		log_debug("probe: plan cache %s: cannot mark it used: %s", path, strerror(errno));
	/* the messages planning printed, as it printed them */
	if (msgs_len)
		fwrite(msgs, 1, msgs_len, stderr);
	log_debug("probe: plan loaded from the cache %s (%zu probes)", path, m->ndefs);
out:
	free(msgs);
	free(buf);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* --- writing ------------------------------------------------------------ */

static void wr_u32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void wr_u64(FILE *f, uint64_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void wr_str(FILE *f, const char *s)
{
	size_t len = strlen(s);

	wr_u32(f, (uint32_t)len);
	fwrite(s, 1, len, f);
}

static void wr_code(FILE *f, const struct x86_code *c)
{
	wr_u32(f, c->len);
	fwrite(c->buf, 1, c->len, f);
	wr_u32(f, c->nrel);
	fwrite(c->rel, sizeof(c->rel[0]), c->nrel, f);
	wr_u32(f, c->nskip);
	fwrite(c->skip, sizeof(c->skip[0]), c->nskip, f);
	wr_u32(f, c->nmark);
	fwrite(c->mark, sizeof(c->mark[0]), c->nmark, f);
}

void probe_cache_capture_begin(void)
{
	probe_cache_capture_end();
	log_tee = open_memstream(&cache_msgs, &cache_msgs_len);
}

void probe_cache_capture_end(void)
{
	if (log_tee)
		fclose(log_tee);
	log_tee = NULL;
	free(cache_msgs);
	cache_msgs = NULL;
	cache_msgs_len = 0;
}

/* mkdir -p of the cache directory, private. */
static int cache_mkdir(const char *dir)
{
	char p[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, len + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int cache_payload(const struct probe_mgr *m, FILE *f)
{
	char sig[BUILDID_HEX_MAX + 8], dbg[PATH_MAX];
	uint32_t nmsg = 0;

	for (size_t i = 0; i < m->ndefs; i++)
		if (m->defs[i].vars || m->defs[i].nvars || m->defs[i].time_only)
			return -ENOTSUP;
	if (m->nvspecs || m->nmods > CACHE_MAX_MODS || m->nlibs > CACHE_MAX_MODS)
		return -ENOTSUP;
	/* one string per line */
	for (size_t i = 0; i < cache_msgs_len; i++)
		nmsg += cache_msgs[i] == '\n';
	if (memchr(cache_msgs ? cache_msgs : "", 0, cache_msgs_len) ||
	    (cache_msgs_len && cache_msgs[cache_msgs_len - 1] != '\n'))
		return -ENOTSUP;
	wr_u32(f, nmsg);
	for (size_t i = 0; i < cache_msgs_len;) {
		const char *nl = memchr(cache_msgs + i, '\n', cache_msgs_len - i);
		size_t len = (size_t)(nl - (cache_msgs + i)) + 1;

		wr_u32(f, (uint32_t)len);
		fwrite(cache_msgs + i, 1, len, f);
		i += len;
	}
	wr_u32(f, (uint32_t)m->nlibs);
	for (size_t i = 0; i < m->nlibs; i++) {
		if (m->libs[i][0] != '/' || cache_sig(m->libs[i], sig, sizeof(sig)) < 0)
			return -ENODATA;
		wr_str(f, m->libs[i]);
		wr_str(f, sig);
	}
	wr_u32(f, (uint32_t)m->nmods);
	for (size_t i = 0; i < m->nmods; i++) {
		const struct probe_module *mod = &m->mods[i];

		if (mod->path[0] != '/' || cache_sig(mod->path, sig, sizeof(sig)) < 0)
			return -ENODATA;
		/* what planning found just now (it looks when it needs one) */
		cache_debugfile(mod->path, dbg, sizeof(dbg));
		wr_str(f, mod->path);
		wr_str(f, mod->name);
		wr_u32(f, (uint32_t)mod->is_main);
		wr_u32(f, (uint32_t)mod->stripped);
		wr_str(f, sig);
		wr_str(f, dbg);
		wr_u32(f, (uint32_t)mod->nsyms);
		for (size_t k = 0; k < mod->nsyms; k++) {
			wr_str(f, mod->syms[k].name);
			wr_u64(f, mod->syms[k].addr);
			wr_u64(f, mod->syms[k].size);
		}
	}
	wr_u32(f, (uint32_t)m->ndefs);
	for (size_t i = 0; i < m->ndefs; i++) {
		struct probe_def d = m->defs[i];
		uint8_t has_code = d.code != NULL;

		d.code = NULL;
		d.vars = NULL;
		d.spec = NULL;
		fwrite(&d, sizeof(d), 1, f);
		fwrite(&has_code, 1, 1, f);
		if (has_code)
			wr_code(f, m->defs[i].code);
	}
	return 0;
}

void probe_cache_save(const struct probe_mgr *m, const char *key)
{
	char path[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 16];
	struct cache_hdr h;
	char *payload = NULL;
	size_t plen = 0;
	struct stat st;
	FILE *f;
	int fd = -1, rc;

	if (log_tee)
		fflush(log_tee);
	if (cache_dir(dir, sizeof(dir)) < 0 || cache_path(key, path, sizeof(path)) < 0)
		return;
	f = open_memstream(&payload, &plen);
	if (!f)
		return;
	rc = cache_payload(m, f);
	if (fclose(f) || rc < 0)
		goto out;
	if (cache_mkdir(dir) < 0 || lstat(dir, &st) < 0 || !cache_trusted(&st, 1))
		goto out;
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.format = CACHE_FORMAT;
	h.key_len = (uint32_t)strlen(key);
	h.payload_len = plen;
	h.payload_fnv = cache_fnv(payload, plen);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto out;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		goto out;
	}
	fwrite(&h, sizeof(h), 1, f);
	fwrite(key, 1, h.key_len, f);
	fwrite(payload, 1, plen, f);
	/* a whole file or none: readers see the old one until the rename */
	if (fclose(f) || rename(tmp, path) < 0) {
		unlink(tmp);
		goto out;
	}
	log_debug("probe: plan saved in the cache %s", path);
	probe_cache_prune(dir, strrchr(path, '/') + 1);
out:
	free(payload);
}
