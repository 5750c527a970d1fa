// SPDX-License-Identifier: MIT
/*
 * agent_sys_mem.c - sys:mem in the agent: the allocator functions (malloc,
 * calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc,
 * pvalloc) are interposed and count, per thread, allocating calls, bytes
 * asked for, blocks released, and usable bytes allocated minus released
 * (malloc_usable_size: what the allocator really holds for a block, and
 * the same number when the block is freed, so the sum over threads is the
 * heap's live size). The counters are the thread's sys_slot in shared
 * memory (src/common/sys_area.h), written only by that thread with plain
 * adds: no event, no lock, no system call, no allocation.
 *
 * Without sys:mem every interposer is a pass-through: a load of the next
 * function's pointer, an indirect call, one test of agent_sys_mem_state.
 *
 * Bootstrap. The dynamic loader switches to the first malloc in the
 * global scope - this one - before any constructor runs, so the next
 * functions are resolved on first use. dlsym may itself allocate (its
 * error buffer): while the resolution runs, every allocation is served
 * from a static arena (bump pointer, never reused), and free/realloc
 * recognize its blocks by address. No TLS is needed for that: another
 * thread allocating during the resolution also gets arena memory, which
 * is valid memory.
 *
 * Before the agent knows whether sys:mem is on (its constructor), the
 * process's first allocations (the loader's, other constructors') are
 * counted into process-wide atomics; the first thread that counts after
 * sys:mem was switched on adds them to its own slot, so live bytes at exit
 * include blocks allocated before main. Without sys:mem those counters stop
 * at the constructor.
 *
 * Limits: calls that bypass the dynamic symbols (a program's own static
 * allocator, glibc-internal __libc_malloc) are not seen; a block allocated
 * where the agent cannot see it and freed through free() lowers live bytes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "agent_sys.h"

enum { MEM_EARLY = 0, MEM_ON = 1, MEM_OFF = 2 };

/* Read on every allocator call: MEM_OFF makes them pass-throughs. */
static int agent_mem_state;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static size_t (*real_usable)(void *);

/* 0 unresolved, 1 resolving (allocations come from the arena), 2 done */
static int agent_mem_resolved;

/* ---- the bootstrap arena ---- */

#define MEM_ARENA_SIZE 65536
#define MEM_ARENA_HDR 16 /* block size before each block, keeps 16-byte alignment */
static char agent_mem_arena[MEM_ARENA_SIZE] __attribute__((aligned(64)));
static size_t agent_mem_arena_used;

static int mem_in_arena(const void *p)
{
	return (const char *)p >= agent_mem_arena &&
	       (const char *)p < agent_mem_arena + MEM_ARENA_SIZE;
}

static void *mem_arena_alloc(size_t n, size_t align)
{
	size_t need, off, cur;

	if (align < MEM_ARENA_HDR)
		align = MEM_ARENA_HDR;
	if (n > MEM_ARENA_SIZE || align > 4096)
		return NULL;
	need = (n + MEM_ARENA_HDR - 1) & ~(size_t)(MEM_ARENA_HDR - 1);
	cur = __atomic_load_n(&agent_mem_arena_used, __ATOMIC_RELAXED);
	do {
		off = (cur + MEM_ARENA_HDR + align - 1) & ~(align - 1);
		if (off + need > MEM_ARENA_SIZE)
			return NULL;
	} while (!__atomic_compare_exchange_n(&agent_mem_arena_used, &cur, off + need, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*(size_t *)(agent_mem_arena + off - MEM_ARENA_HDR) = n;
	return agent_mem_arena + off; /* zeroed: static and never reused */
}

static size_t mem_arena_size(const void *p)
{
	return *(const size_t *)((const char *)p - MEM_ARENA_HDR);
}

/* ---- resolution ---- */

#define MEM_SET(var, name)                                                                         \
	__atomic_store_n((void **)&var, dlsym(RTLD_NEXT, name), __ATOMIC_RELEASE)

/* 0 when the next functions are known; -1 while they are being looked up
 * (the caller serves the request from the arena). */
static int mem_resolve(void)
{
	int expect = 0, saved;

	if (AGENT_LIKELY(__atomic_load_n(&agent_mem_resolved, __ATOMIC_ACQUIRE) == 2))
		return 0;
	if (!__atomic_compare_exchange_n(&agent_mem_resolved, &expect, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return expect == 2 ? 0 : -1;
	saved = errno;
	/* free and the size first: what a nested call needs soonest. */
	MEM_SET(real_usable, "malloc_usable_size");
	MEM_SET(real_free, "free");
	MEM_SET(real_malloc, "malloc");
	MEM_SET(real_calloc, "calloc");
	MEM_SET(real_realloc, "realloc");
	MEM_SET(real_posix_memalign, "posix_memalign");
	MEM_SET(real_aligned_alloc, "aligned_alloc");
	MEM_SET(real_memalign, "memalign");
	MEM_SET(real_valloc, "valloc");
	MEM_SET(real_pvalloc, "pvalloc");
	__atomic_store_n(&agent_mem_resolved, 2, __ATOMIC_RELEASE);
	errno = saved;
	return 0;
}

/* The next function, resolving it first if needed; NULL while resolving. */
#define MEM_REAL(var)                                                                              \
	({                                                                                         \
		__typeof__(var) f_ = __atomic_load_n(&var, __ATOMIC_ACQUIRE);                      \
		if (AGENT_UNLIKELY(!f_) && !mem_resolve())                                         \
			f_ = __atomic_load_n(&var, __ATOMIC_ACQUIRE);                              \
		f_;                                                                                \
	})

/* ---- counting ---- */

static uint64_t mem_early_calls, mem_early_bytes, mem_early_frees, mem_early_live;
static int mem_early_pending; /* set when sys:mem is switched on */

static size_t mem_usable(void *p)
{
	size_t (*f)(void *) = __atomic_load_n(&real_usable, __ATOMIC_ACQUIRE);

	if (!p)
		return 0;
	if (mem_in_arena(p))
		return mem_arena_size(p);
	return f ? f(p) : 0;
}

static inline void mem_add(uint64_t *p, uint64_t v)
{
	/* Single writer: a plain load and store, no lock prefix. */
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/*
 * One call: calls (0/1), bytes asked for, blocks released (0/1), live
 * change in usable bytes. Out of line: only reached with sys:mem on, or
 * before the constructor.
 */
static __attribute__((noinline)) void mem_count(uint64_t calls, uint64_t bytes, uint64_t frees,
						 uint64_t live)
{
	struct sys_slot *s;
	int saved;

	if (__atomic_load_n(&agent_mem_state, __ATOMIC_ACQUIRE) == MEM_EARLY) {
		if (agent_self.busy)
			return; /* the agent's own (dlsym's) */
		__atomic_fetch_add(&mem_early_calls, calls, __ATOMIC_RELAXED);
		__atomic_fetch_add(&mem_early_bytes, bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&mem_early_frees, frees, __ATOMIC_RELAXED);
		__atomic_fetch_add(&mem_early_live, live, __ATOMIC_RELAXED);
		return;
	}
	if (AGENT_LIKELY(agent_self.state == AGENT_T_ON)) {
		s = agent_sys_self_slot();
	} else {
		/* Registering the thread may make system calls: the caller's
		 * errno (an allocation's ENOMEM) must survive. */
		saved = errno;
		s = agent_sys_self_slot();
		errno = saved;
	}
	if (!s)
		return;
	if (AGENT_UNLIKELY(__atomic_load_n(&mem_early_pending, __ATOMIC_RELAXED)) &&
	    __atomic_exchange_n(&mem_early_pending, 0, __ATOMIC_ACQ_REL)) {
		calls += __atomic_load_n(&mem_early_calls, __ATOMIC_RELAXED);
		bytes += __atomic_load_n(&mem_early_bytes, __ATOMIC_RELAXED);
		frees += __atomic_load_n(&mem_early_frees, __ATOMIC_RELAXED);
		live += __atomic_load_n(&mem_early_live, __ATOMIC_RELAXED);
	}
	mem_add(&s->mem_calls, calls);
	mem_add(&s->mem_bytes, bytes);
	mem_add(&s->mem_frees, frees);
	mem_add(&s->mem_live, live);
}

#define MEM_COUNTING() AGENT_UNLIKELY(__atomic_load_n(&agent_mem_state, __ATOMIC_RELAXED) != MEM_OFF)

static void *mem_counted(void *p, size_t asked)
{
	mem_count(1, p ? asked : 0, 0, mem_usable(p));
	return p;
}

/* From agent_sys_init, in the constructor: sys:mem asked or not. */
void agent_sys_mem_start(int on)
{
	if (on)
		__atomic_store_n(&mem_early_pending, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&agent_mem_state, on ? MEM_ON : MEM_OFF, __ATOMIC_RELEASE);
}

void agent_sys_mem_switch(int on)
{
	/* a thread inside an interposer meanwhile (stopped by spool there)
	 * counts its call or not by the state it read before calling the
	 * allocator (MEM_COUNTING) */
	__atomic_store_n(&agent_mem_state, on ? MEM_ON : MEM_OFF, __ATOMIC_RELEASE);
}

/* An inert agent (no spool session) never calls agent_sys_init: stop the
 * early counting here (in link order this runs after agent_main.c's
 * constructor; if it ran first, agent_sys_init still switches it on). */
__attribute__((constructor)) static void agent_sys_mem_ctor(void)
{
	int expect = MEM_EARLY;

	mem_resolve();
	__atomic_compare_exchange_n(&agent_mem_state, &expect, MEM_OFF, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
}

int agent_sys_mem_on(void)
{
	return __atomic_load_n(&agent_mem_state, __ATOMIC_ACQUIRE) == MEM_ON;
}

/* Attach mode (agent_probe_got.c), before any slot points at these
 * interposers: are the next functions the ones the program's slots hold
 * (libc's malloc and free)? Resolves them now if needed. */
int agent_sys_mem_next_is(void *libc_malloc, void *libc_free)
{
	if (mem_resolve() < 0)
		return 0;
	return libc_malloc && __atomic_load_n(&real_malloc, __ATOMIC_ACQUIRE) == libc_malloc &&
	       __atomic_load_n(&real_free, __ATOMIC_ACQUIRE) == libc_free;
}

/* ---- the interposers ---- */

AGENT_EXPORT void *malloc(size_t n)
{
	void *(*f)(size_t) = MEM_REAL(real_malloc);

	if (AGENT_UNLIKELY(!f))
		return mem_arena_alloc(n, 16);
	if (!MEM_COUNTING())
		return f(n); /* a tail call */
	return mem_counted(f(n), n);
}

AGENT_EXPORT void *calloc(size_t nm, size_t sz)
{
	void *(*f)(size_t, size_t) = MEM_REAL(real_calloc);
	size_t n;

	if (AGENT_UNLIKELY(!f)) {
		if (__builtin_mul_overflow(nm, sz, &n))
			return NULL;
		return mem_arena_alloc(n, 16);
	}
	if (!MEM_COUNTING())
		return f(nm, sz);
	if (__builtin_mul_overflow(nm, sz, &n))
		n = 0; /* fails anyway */
	return mem_counted(f(nm, sz), n);
}

AGENT_EXPORT void free(void *p)
{
	void (*f)(void *);

	if (!p || AGENT_UNLIKELY(mem_in_arena(p)))
		return;
	f = MEM_REAL(real_free);
	if (AGENT_UNLIKELY(!f))
		return; /* cannot happen: only arena blocks exist before */
	if (!MEM_COUNTING()) {
		f(p); /* a tail call */
		return;
	}
	mem_count(0, 0, 1, -(uint64_t)mem_usable(p));
	f(p);
}

AGENT_EXPORT void *realloc(void *p, size_t n)
{
	void *(*f)(void *, size_t);
	size_t old;
	void *q;

	if (AGENT_UNLIKELY(p && mem_in_arena(p))) {
		/* An arena block moves to the real heap (or a bigger arena
		 * block): counted as a new allocation. */
		old = mem_arena_size(p);
		q = n ? malloc(n) : NULL;
		if (q)
			memcpy(q, p, old < n ? old : n);
		return q;
	}
	f = MEM_REAL(real_realloc);
	if (AGENT_UNLIKELY(!f)) {
		q = mem_arena_alloc(n, 16);
		return q; /* p is NULL here: only arena blocks exist before */
	}
	if (!MEM_COUNTING())
		return f(p, n);
	old = mem_usable(p);
	q = f(p, n);
	if (q)
		mem_count(1, n, 0, (uint64_t)mem_usable(q) - old);
	else if (p && !n)
		mem_count(1, 0, 1, -(uint64_t)old); /* glibc: realloc(p, 0) frees p */
	else
		mem_count(1, 0, 0, 0); /* failed: p is untouched */
	return q;
}

AGENT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int (*f)(void **, size_t, size_t) = MEM_REAL(real_posix_memalign);
	int rc;

	if (AGENT_UNLIKELY(!f)) {
		*out = mem_arena_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	if (!MEM_COUNTING())
		return f(out, align, n);
	rc = f(out, align, n);
	mem_counted(rc ? NULL : *out, n);
	return rc;
}

AGENT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *(*f)(size_t, size_t) = MEM_REAL(real_aligned_alloc);

	if (AGENT_UNLIKELY(!f))
		return mem_arena_alloc(n, align);
	if (!MEM_COUNTING())
		return f(align, n);
	return mem_counted(f(align, n), n);
}

AGENT_EXPORT void *memalign(size_t align, size_t n)
{
	void *(*f)(size_t, size_t) = MEM_REAL(real_memalign);

	if (AGENT_UNLIKELY(!f))
		return mem_arena_alloc(n, align);
	if (!MEM_COUNTING())
		return f(align, n);
	return mem_counted(f(align, n), n);
}

AGENT_EXPORT void *valloc(size_t n)
{
	void *(*f)(size_t) = MEM_REAL(real_valloc);

	if (AGENT_UNLIKELY(!f))
		return mem_arena_alloc(n, 4096);
	if (!MEM_COUNTING())
		return f(n);
	return mem_counted(f(n), n);
}

AGENT_EXPORT void *pvalloc(size_t n)
{
	void *(*f)(size_t) = MEM_REAL(real_pvalloc);

	if (AGENT_UNLIKELY(!f))
		return mem_arena_alloc(n, 4096);
	if (!MEM_COUNTING())
		return f(n);
	return mem_counted(f(n), n);
}
