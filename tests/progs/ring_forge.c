// SPDX-License-Identifier: MIT
/*
 * ring_forge.c - a hostile target that writes well-formed packets into its
 * own ring (tests/integ/297-forged-packets.t). A thread finds its ring in
 * spool's shared region (SPOOL_SHM_FD, the ring whose tid is its own),
 * builds packets with the agent's own producer code (src/common/
 * ring_produce.h) in memory of its own, then copies them over its ring
 * from the packet the agent had opened (its thread start) and publishes
 * them. Every packet passes the collector's format check: only what the
 * packets claim is forged. The thread then waits, making no call the agent
 * sees, until the process exits.
 *
 * Usage: ring_forge MODE
 *   clean     a thread start, then two packets of 3 lock events each,
 *             numbered on (the control: nothing is lost)
 *   jump      the second packet's numbering jumps 1000 ahead; its ring's
 *             lost counter says nothing was dropped
 *   jumplost  the same, and the lost counter counts the 995 skipped
 *   tid       its thread start names the main thread's tid
 *   proc      a process record after its thread start (the main thread's
 *             ring has the process's own)
 * In the records mode (SPOOL_RING_PACKETS=0: no SHM_F_PACKETS) the same as
 * records, after the thread start the agent wrote (tid: a second one).
 * Prints "forged MODE" and exits 0; 2 when not run under spool.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "../../src/common/event.h"
#include "../../src/common/ring_produce.h"
#include "../../src/common/shm.h"


/* the agent's clock: the TSC, or the virtual counter on aarch64 */
static uint64_t forge_ts(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#endif
}
static const char *mode;
static unsigned char *base;
static volatile int forged; /* 1 done, 2 failed */
static pthread_mutex_t main_lock = PTHREAD_MUTEX_INITIALIZER;

static void put_thread(struct ring_prod *p, uint32_t seq, uint32_t tid)
{
	struct rec_thread *t;

	p->ring->last_seq = seq;
	t = ring_prod_reserve(p, sizeof(*t));
	if (!t)
		return;
	memset(t, 0, sizeof(*t));
	t->h.word = ev_word(KIND_THREAD, 0, 0, 0);
	t->h.tsc = forge_ts();
	t->h.seq = seq;
	t->h.size = sizeof(*t);
	t->tid = tid;
	t->pid = (uint32_t)getpid();
	memcpy(t->name, "ring_forge", 11);
	ring_prod_commit(p, sizeof(*t));
}

static void put_proc(struct ring_prod *p, uint32_t seq, uint32_t slot)
{
	struct rec_proc *r;

	p->ring->last_seq = seq;
	r = ring_prod_reserve(p, sizeof(*r));
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->h.word = ev_word(KIND_PROC, 0, 0, 0);
	r->h.tsc = forge_ts();
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->pid = (uint32_t)getpid();
	r->ppid = (uint32_t)getppid();
	r->proc_slot = slot;
	ring_prod_commit(p, sizeof(*r));
}

static void put_lock(struct ring_prod *p, uint32_t seq, unsigned op)
{
	struct rec_lock *r;

	p->ring->last_seq = seq;
	r = ring_prod_reserve(p, sizeof(*r));
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->h.word = ev_word(KIND_LOCK, 0, 0, op);
	r->h.tsc = forge_ts();
	r->h.seq = seq;
	r->h.size = sizeof(*r);
	r->ip = (uint64_t)(uintptr_t)put_lock;
	ring_prod_commit(p, sizeof(*r));
}

/* This thread's ring (its claim stored our tid), or NULL. */
static struct shm_ring *my_ring(const struct shm_ctl *c)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	for (uint32_t i = 0; i < c->max_rings; i++) {
		struct shm_ring *r =
		    (struct shm_ring *)(base + c->rings_offset + i * shm_ring_stride(c->ring_bytes));

		if (__atomic_load_n(&r->tid, __ATOMIC_ACQUIRE) == tid &&
		    __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == RING_ACTIVE)
			return r;
	}
	return NULL;
}

/* Forever: nothing the agent sees, ever again (no pause on aarch64). */
static void forge_park(void)
{
	for (;;)
		syscall(SYS_ppoll, NULL, 0, NULL, NULL, 0);
}

/*
 * The records mode (SPOOL_RING_PACKETS=0, no SHM_F_PACKETS): the records
 * after the agent's own (its thread start), numbered on from its last_seq,
 * built in fake and copied over the ring from its head, then published.
 */
static void *forge_records(struct shm_ring *r, struct shm_ring *fake, uint32_t size)
{
	uint64_t start = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint32_t seq = r->last_seq;
	struct ring_prod p;

	fake->head = fake->tail = start;
	ring_prod_init(&p, fake, size, 0);
	if (!strcmp(mode, "tid"))
		put_thread(&p, ++seq, (uint32_t)getpid());
	if (!strcmp(mode, "proc"))
		put_proc(&p, ++seq, r->proc_slot);
	for (int k = 0; k < 3; k++)
		put_lock(&p, ++seq, k == 1 ? OP_RELEASE : OP_ACQUIRE);
	if (!strncmp(mode, "jump", 4))
		seq += 995;
	for (int k = 0; k < 3; k++)
		put_lock(&p, ++seq, k == 1 ? OP_RELEASE : OP_ACQUIRE);
	for (uint64_t o = start; o < p.head; o++)
		shm_ring_data(r)[o & (size - 1)] = shm_ring_data(fake)[o & (size - 1)];
	if (!strcmp(mode, "jumplost"))
		__atomic_store_n(&r->lost, r->lost + 995, __ATOMIC_RELEASE);
	r->last_seq = seq;
	__atomic_store_n(&r->head, p.head, __ATOMIC_RELEASE);
	forged = 1;
	forge_park();
	return NULL;
}

static void *forger(void *arg)
{
	const struct shm_ctl *c = (const struct shm_ctl *)base;
	uint32_t size = c->ring_bytes, slot = shm_pkt_slot(size), seq = 0;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct shm_ring *r = my_ring(c), *fake;
	struct ring_prod p;
	uint64_t start;

	(void)arg;
	if (!r) {
		forged = 2;
		return NULL;
	}
	/* our packets, built where the collector cannot see them half done */
	fake = aligned_alloc(4096, SHM_RING_HDR + (size_t)size);
	if (!fake) {
		forged = 2;
		return NULL;
	}
	memset(fake, 0, SHM_RING_HDR + (size_t)size);
	if (!(c->flags & SHM_F_PACKETS))
		return forge_records(r, fake, size);
	start = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) & ~(uint64_t)(slot - 1);
	fake->head = fake->tail = start;
	ring_prod_init(&p, fake, size, 0);
	ring_prod_packets(&p, slot, NULL, (uint32_t)getpid(), tid);

	put_thread(&p, ++seq, !strcmp(mode, "tid") ? (uint32_t)getpid() : tid);
	if (!strcmp(mode, "proc"))
		put_proc(&p, ++seq, r->proc_slot);
	for (int k = 0; k < 3; k++)
		put_lock(&p, ++seq, k == 1 ? OP_RELEASE : OP_ACQUIRE);
	ring_prod_flush(&p);
	if (!strncmp(mode, "jump", 4))
		seq += 995;
	for (int k = 0; k < 3; k++)
		put_lock(&p, ++seq, k == 1 ? OP_RELEASE : OP_ACQUIRE);
	ring_prod_flush(&p);

	/* Over the ring: head back to the slot the agent opened first (the
	 * collector then sees nothing to take), the packets, then head. */
	__atomic_store_n(&r->head, start, __ATOMIC_RELEASE);
	for (uint64_t o = start; o < p.head; o += slot)
		memcpy(shm_ring_data(r) + (o & (size - 1)), shm_ring_data(fake) + (o & (size - 1)),
		       slot);
	if (!strcmp(mode, "jumplost"))
		__atomic_store_n(&r->lost, r->lost + 995, __ATOMIC_RELEASE);
	r->last_seq = seq;
	r->done_seq = seq;
	__atomic_store_n(&r->head, p.head, __ATOMIC_RELEASE);
	forged = 1;
	forge_park();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *fds = getenv(SHM_ENV_FD);
	struct timespec nap = {0, 10000000};
	struct stat st;
	pthread_t th;
	int fd;

	mode = argc > 1 ? argv[1] : "clean";
	if (!fds) {
		fprintf(stderr, "ring_forge: no %s (run me under spool)\n", SHM_ENV_FD);
		return 2;
	}
	fd = atoi(fds);
	if (fstat(fd, &st) < 0 ||
	    (base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
		MAP_FAILED) {
		perror("ring_forge: map");
		return 2;
	}
	pthread_mutex_lock(&main_lock);
	pthread_mutex_unlock(&main_lock);
	if (pthread_create(&th, NULL, forger, NULL)) {
		perror("pthread_create");
		return 2;
	}
	while (!forged)
		nanosleep(&nap, NULL);
	if (forged != 1) {
		fprintf(stderr, "ring_forge: no ring of its own found\n");
		return 2;
	}
	/* the collector takes the packets while the process lives */
	nap.tv_nsec = 300000000;
	nanosleep(&nap, NULL);
	printf("forged %s\n", mode);
	fflush(stdout);
	exit(0);
}
