// SPDX-License-Identifier: MIT
/*
 * probe_cache.h - the plan cache of `spool probe`: the probes planned for a
 * program (every def with its trampoline, the modules' symbols, the
 * libraries resolved, the planning messages) saved under
 * $XDG_CACHE_HOME/spool/plans (~/.cache/spool/plans), so that the next run
 * with the same specs on the same files skips reading the ELF files,
 * decoding and relocating (most of spool's fixed cost on a large library).
 *
 * An entry is keyed by the text of everything planning depends on: spool's
 * own build id, the specs, --exits, -q, the executable's path and build id,
 * LD_LIBRARY_PATH and /etc/ld.so.cache's identity. Loading checks the key
 * byte for byte, then that every library and module still has the build id
 * it had (and the same separate debug file, or none).
 *
 * A cache file is hostile input: one not owned by the user, or writable by
 * others, or in such a directory, is refused; every count, index, length
 * and string of it is bounds-checked, its payload checksummed; any doubt
 * and it is ignored (planned afresh and rewritten), never trusted.
 */
#ifndef SPOOL_PROBE_PROBE_CACHE_H
#define SPOOL_PROBE_PROBE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* The key of a plan: NULL-free text built from the run's inputs; *key is
 * malloc'd. Returns 0, -ENODATA (no cache for this run: a file without a
 * build id) or -ENOMEM. */
int probe_cache_key(const struct probe_mgr *m, const char *const *specs, size_t nspecs,
		    int quiet, char **key);

/* Fill m (as probe_mgr_init left it, exe set) from the cache entry of key
 * and print the planning messages it kept. Returns 1 if it did, 0 if there
 * is no usable entry (m unchanged), < 0 on an error (m may hold part of
 * the entry: probe_mgr_free it). */
int probe_cache_load(struct probe_mgr *m, const char *key);

/* The checks and parsing of probe_cache_load on a file's bytes: 1 and m
 * filled, *msgs (malloc'd) the planning messages; 0 and *why when it is
 * not usable. check_files 0 skips comparing build ids with the files now
 * (the fuzzing harness, fuzz/fuzz_plancache.c). */
int probe_cache_load_buf(struct probe_mgr *m, const char *key, const void *data, size_t len,
			 int check_files, char **msgs, size_t *msgs_len, const char **why);

/* Start keeping the planning messages (log_tee) for probe_cache_save. */
void probe_cache_capture_begin(void);
/* Save m's plan under key, with the messages captured since
 * probe_cache_capture_begin. Failures are only logged at debug level:
 * the cache is an optimisation. */
void probe_cache_save(const struct probe_mgr *m, const char *key);
/* Old plans: one not used (loaded or saved) for this many days is removed,
 * then the least recently used ones until the directory holds at most
 * PROBE_CACHE_MAX_BYTES (a plan of every libsqlite3 function is 2.2 MB);
 * SPOOL_PLAN_CACHE_MAX=BYTES sets that limit. */
#define PROBE_CACHE_MAX_DAYS 30
#define PROBE_CACHE_MAX_BYTES (64ull << 20)
/* The size limit in force (PROBE_CACHE_MAX_BYTES or SPOOL_PLAN_CACHE_MAX). */
uint64_t probe_cache_max_bytes(void);
/* Remove old plans of dir (probe_cache_prune.c) except the file named keep:
 * only files spool made (their name's shape, regular, the user's own). */
void probe_cache_prune(const char *dir, const char *keep);

/* Stop capturing (and drop what was captured). */
void probe_cache_capture_end(void);

/* Whether the plan cache may serve this run's specs (func:, block:,
 * branch: only: variable probes read DWARF state kept outside the defs). */
int probe_cache_spec_ok(const char *spec);

#endif
