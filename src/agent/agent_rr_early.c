// SPDX-License-Identifier: MIT
/*
 * agent_rr_early.c - clock reads the program makes before the agent has
 * started. A library's constructor runs before the preloaded agent's
 * (libgpg-error's, loaded through libsystemd, calls bindtextdomain, whose
 * malloc is jemalloc's first): jemalloc then reads CLOCK_MONOTONIC_COARSE
 * and starts the purge epochs of its arenas from it. No log exists yet,
 * so the read went unrecorded and a replay's real clock, seconds later
 * than the recorded readings that follow, put every epoch deadline
 * elsewhere: redis-server with jemalloc's background thread diverged near
 * its end in every serial replay (tests/real/106-redis-bg-thread.t).
 *
 * Record: such a reading is the real one, kept here (at most
 * EARLY_CLOCK_MAX); when the agent has started it copies them into the
 * record area (rr_area.early_*), and spool record writes them in
 * .spool/record (early_clock=). Replay: the program's reads before the
 * agent started get them back in order while the clock ids match (another
 * read is the real one, as with no recording).
 *
 * Reads and getrandom calls made there (a library's constructor reading
 * /dev/urandom or getrandom for its seed; jemalloc reads /proc and /sys
 * through syscall(SYS_read)), and getpid calls (the result only), are kept
 * the same way, with their bytes
 * (struct rr_early_io: at most RR_EIO_MAX calls, RR_EIO_DATA bytes; what
 * does not fit is counted and real in the replay). Record: copied into
 * rr_area.eio when the agent starts; spool record keeps them in
 * .spool/early_io.
 *
 * Replay: too many bytes for the 128 a replay may add to the stack, and a
 * replay may add one variable only (its entries are counted too, session.c),
 * so spool replay writes the readings and the calls into process 0's
 * record area (rr_area.early_*, rr_area.eio) and passes only that area's
 * offset in the shared memory, in SPOOL_EARLY_IO; the first early call
 * reads them from the region's descriptor (SPOOL_SHM_FD) with pread: no
 * mapping, no descriptor of its own, so the address space and the
 * descriptor numbers the program sees are the recording's. The
 * constructor removes the variable from the environment
 * (agent_rr_early_start): the recorded program did not see it, and an
 * exec'd image must not take what was meant for this one. A call gets its recorded result and bytes when it is
 * the next recorded one (the same call, descriptor and size); a read
 * given so moves the file's offset as the recorded one did (lseek; a pipe
 * has none). Another call is the real one, as with no recording.
 *
 * Runs in constructors, one thread, before anything of the agent is set
 * up: raw system calls (the agent's own syscall() passes them through),
 * getenv only, no malloc.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"
#include "../common/early_clock.h"
#include "../common/shm.h"

_Static_assert(RR_EARLY_MAX == EARLY_CLOCK_MAX, "rr_area.early_* holds EARLY_CLOCK_MAX readings");

int agent_rr_started;

static int32_t early_clk[EARLY_CLOCK_MAX];
static uint64_t early_ns[EARLY_CLOCK_MAX];
static uint32_t early_n;    /* record: readings kept; replay: readings given */
static uint32_t early_next; /* replay: the next reading to give */
static struct rr_early_io early_io; /* record: calls kept; replay: calls given */
static uint32_t eio_next;	    /* replay: the next call to give */
static int early_state; /* 0: not looked yet, 1: keep, 2: give back, 3: neither (damaged) */
static int early_remove; /* keep, and remove the variable as a replay does */

static uint64_t early_num(const char *s, int *ok)
{
	uint64_t v = 0;

	*ok = s && *s;
	for (; s && *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) {
			*ok = 0;
			return 0;
		}
		v = v * 10 + (uint64_t)(*s - '0');
	}
	return v;
}

/* Read len bytes at off of the region (the whole of them or -1). */
static int early_pread(int fd, void *dst, size_t len, uint64_t off)
{
	return syscall(SYS_pread64, fd, dst, len, (long)off) == (long)len ? 0 : -1;
}

/* Replay: what process 0's area holds (replay.c, replay_prepare). */
static void early_load(const char *e)
{
	uint64_t off, fd;
	uint32_t n;
	int ok1, ok2;

	off = early_num(e, &ok1);
	fd = early_num(getenv(SHM_ENV_FD), &ok2);
	if (!ok1 || !ok2 || fd > INT32_MAX || off > INT64_MAX / 2)
		return;
	if (early_pread((int)fd, &n, sizeof(n), off + offsetof(struct rr_area, early_n)) ||
	    early_pread((int)fd, early_clk, sizeof(early_clk),
			off + offsetof(struct rr_area, early_clk)) ||
	    early_pread((int)fd, early_ns, sizeof(early_ns), off + offsetof(struct rr_area, early_ns)) ||
	    early_pread((int)fd, &early_io, sizeof(early_io), off + offsetof(struct rr_area, eio)))
		return;
	if (!rr_early_io_valid(&early_io))
		return;
	early_n = n < EARLY_CLOCK_MAX ? n : EARLY_CLOCK_MAX;
	early_state = 2;
}

static void early_look(void)
{
	const char *e;

	if (early_state)
		return;
	e = getenv(EARLY_IO_ENV);
	if (!e || !strcmp(e, EARLY_IO_KEEP)) {
		/* (record: the variable is there, as wide as a replay's,
		 * only to be removed: early_clock.h) */
		early_remove = e != NULL;
		early_state = 1;
		return;
	}
	early_state = 3;
	early_load(e);
	if (early_state != 2) {
		early_n = 0;
		early_io.n = 0;
	}
}

int agent_rr_early_on(void)
{
	early_look();
	/* (1 without the variable: no spool record or replay started this) */
	return early_state == 2 || early_state == 3 || (early_state == 1 && early_remove);
}

int agent_rr_early_clock(clockid_t clk, struct timespec *ts)
{
	long r;

	early_look();
	if (early_state == 2 && ts && early_next < early_n && early_clk[early_next] == (int32_t)clk) {
		ts->tv_sec = (time_t)(early_ns[early_next] / 1000000000u);
		ts->tv_nsec = (long)(early_ns[early_next] % 1000000000u);
		early_next++;
		return 0;
	}
	r = syscall(SYS_clock_gettime, clk, ts);
	if (early_state == 1 && !r && ts && ts->tv_sec >= 0 && early_n < EARLY_CLOCK_MAX) {
		early_clk[early_n] = (int32_t)clk;
		early_ns[early_n] = (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
		early_n++;
	}
	return (int)r;
}

/* ---- reads and getrandom ---- */

/* Record: keep the call's result (r, or -errno) and bytes if they fit. */
static void eio_keep(uint32_t call, int fd, size_t n, long r, const void *buf)
{
	struct rr_early_ent *x;
	size_t len = r > 0 && call != RR_CALL_GETPID ? (size_t)r : 0;

	if (early_io.n >= RR_EIO_MAX) { /* (every later call is real in a replay too) */
		early_io.full++;
		return;
	}
	x = &early_io.ent[early_io.n++];
	x->call = call;
	x->fd = fd;
	x->count = n;
	x->result = r;
	if (len > RR_EIO_DATA - early_io.bytes) {
		/* Bytes that do not fit: the call keeps its place, made for
		 * real in a replay. Left out, it took the next kept call's
		 * record when that was the same call (dig: the next 4096-byte
		 * read of openssl.cnf got 44 bytes, every later early call
		 * was real, its random seed too). */
		x->off = RR_EIO_REAL;
		x->len = 0;
		early_io.full++;
		return;
	}
	x->off = early_io.bytes;
	x->len = (uint32_t)len;
	if (len)
		memcpy(early_io.data + x->off, buf, len);
	early_io.bytes += (uint32_t)len;
}

/* One early read (fd >= 0) or getrandom (fd -1); errno as the call's. */
static long eio_call(uint32_t call, int fd, void *buf, size_t n, unsigned flags)
{
	long r;

	early_look();
	if (early_state == 2 && eio_next < early_io.n) {
		const struct rr_early_ent *x = &early_io.ent[eio_next];

		if (x->call == call && x->fd == fd && x->count == n && x->off == RR_EIO_REAL) {
			eio_next++; /* its place, made for real (eio_keep) */
		} else if (x->call == call && x->fd == fd && x->count == n) {
			eio_next++;
			if (x->result < 0) {
				errno = (int)-x->result;
				return -1;
			}
			if (x->len) {
				int saved = errno;

				memcpy(buf, early_io.data + x->off, x->len);
				/* the file's offset where the recorded read left it */
				if (call == RR_CALL_READ)
					syscall(SYS_lseek, fd, (long)x->len, SEEK_CUR);
				errno = saved;
			}
			return (long)x->result;
		}
	}
	r = call == RR_CALL_READ ? syscall(SYS_read, fd, buf, n)
				 : syscall(SYS_getrandom, buf, n, flags);
	if (early_state == 1)
		eio_keep(call, fd, n, r < 0 ? -(long)errno : r, buf);
	return r;
}

ssize_t agent_rr_early_read(int fd, void *buf, size_t n)
{
	return eio_call(RR_CALL_READ, fd, buf, n, 0);
}

ssize_t agent_rr_early_getrandom(void *buf, size_t n, unsigned flags)
{
	return eio_call(RR_CALL_GETRANDOM, -1, buf, n, flags);
}

/*
 * getpid before the agent started: OpenSSL notes its pid when a library's
 * constructor seeds its random generator (libisc's, in dig), and reseeds
 * when a later getpid, the recorded one in a replay, differs from it, as
 * after a fork: the replay of dig called getentropy where its recording had
 * not, and diverged. Kept as a call without bytes (result = the pid).
 */
pid_t agent_rr_early_getpid(void)
{
	long r;

	early_look();
	if (early_state == 2 && eio_next < early_io.n &&
	    early_io.ent[eio_next].call == RR_CALL_GETPID)
		return (pid_t)early_io.ent[eio_next++].result;
	r = syscall(SYS_getpid);
	if (early_state == 1)
		eio_keep(RR_CALL_GETPID, -1, 0, r, NULL);
	return (pid_t)r;
}

void agent_rr_early_start(void)
{
	agent_rr_started = 1;
	early_look();
	if (early_state >= 2 || early_remove)
		unsetenv(EARLY_IO_ENV);
}

void agent_rr_early_note(struct rr_area *a)
{
	if (early_state != 1)
		return;
	for (uint32_t i = 0; i < early_n; i++) {
		a->early_clk[i] = early_clk[i];
		a->early_ns[i] = early_ns[i];
	}
	a->early_n = early_n;
	a->eio = early_io;
}
