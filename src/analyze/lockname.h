// SPDX-License-Identifier: MIT
/*
 * lockname.h - the one name of a lock (mutex, rwlock, spinlock, semaphore,
 * condition variable, barrier, futex) that every command shows: the lock
 * report and its JSON, `spool path`'s object column, the Chrome and
 * Perfetto exports. The same lock of the same trace has the same name
 * everywhere, so a user can search one output for what another printed:
 *
 *   acct, table+0x40        the global or static variable the lock is
 *                           (demangled for C++)
 *   cache_init+0x1f#3       a heap or stack lock: the function and offset
 *                           of its init site, # its lock index (the JSON's
 *                           "index"; locks made at one site differ by it)
 *   mutex#3                 no init site known: its type and index
 *
 * The init site's file and line are left out of the name (the JSON's
 * init_site has them, and the text report lists them under its tables:
 * lockname_init_site). Where there is no type column the type goes before
 * the name: "lock:acct" in spool path, "mutex acct" on an export's track.
 */
#ifndef SPOOL_ANALYZE_LOCKNAME_H
#define SPOOL_ANALYZE_LOCKNAME_H

#include <stddef.h>
#include <stdint.h>

/* addr of process pid into buf: 0, or -errno when it has no name. */
typedef int (*lockname_sym_fn)(void *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len);

struct lockname_src {
	uint32_t index;	  /* the trace's lock index */
	uint32_t pid;	  /* the process whose address space addr is in */
	uint32_t type;	  /* LOCK_TYPE_*, 0 = not known */
	int defined;	  /* its KIND_LOCKDEF was seen: addr and init_ip are known */
	uint64_t addr;	  /* the lock's address */
	uint64_t init_ip; /* return address of its init call, 0 = none */
};

struct lockname_syms {
	lockname_sym_fn data; /* the variable covering an address, NULL: none */
	lockname_sym_fn site; /* a return address as "func+0x1f (file.c:12)", NULL: none */
	void *ctx;
};

/* The lock's name into buf (len > 0); returns buf. */
const char *lockname_format(const struct lockname_src *l, const struct lockname_syms *s,
			    char *buf, size_t len);

/* The whole init site, "cache_init+0x1f (cache.c:12)", of a lock whose
 * name is made from it (the second form above) into buf: 0; -ENOENT when
 * the lock is named otherwise or its site has no file and line (the name
 * says all there is). */
int lockname_init_site(const struct lockname_src *l, const struct lockname_syms *s, char *buf,
		       size_t len);

/* "mutex", "rwlock", ... for a LOCK_TYPE_*; "lock" when not known. */
const char *lockname_type(uint32_t type);

/* The two lockname_sym_fn over a struct symbolizer (ctx): the variable
 * (symbolizer_lookup, demangled, "+0x.." inside it) and a return address
 * (symbolizer_format; -ENOENT when it only gives "0x..."). */
int lockname_sym_data(void *symbolizer, uint32_t pid, uint64_t addr, char *buf, size_t len);
int lockname_sym_site(void *symbolizer, uint32_t pid, uint64_t addr, char *buf, size_t len);

#endif
