// SPDX-License-Identifier: MIT
/*
 * agent_rr_stdio_turn.c - sync mode orders the program's stdio streams
 * like locks (doc/record.md "Standard I/O inside libc"): every call on a
 * FILE (fprintf, fputs, fwrite, putc, fflush, fgets, fread, ...) made
 * after the first pthread_create takes a turn of the stream, so a replay
 * lets the threads at a shared stream in the recorded order and prints
 * their lines in the recorded order.
 *
 * glibc serializes a FILE with a lock of its own (_IO_lock_t, recursive,
 * owned by a thread) that every stdio call takes inside libc, where no
 * interposer sees it: which thread's line came first, and which thread's
 * call flushed a shared buffer, was its choice and was not recorded
 * (memcached -vv's threads' lines on stderr came out in another order in
 * a replay that said nothing). The interposers here take that lock
 * themselves first, with the public flockfile, and around it do what
 * agent_lock.c does for a mutex: recording takes the stream's next turn
 * while it holds the lock (the turn order is the lock order); a replay
 * waits for the recorded turn, takes the lock, passes the turn on (the
 * next thread then waits in flockfile for the unlock, as it did). The
 * FILE's address is the object (a lock-table entry of type mutex: glibc's
 * lock is one). Then the real call runs with the lock held; glibc's own
 * lock inside it is a recursive take by the owner. A call made while the
 * thread already owns the lock (the program's own flockfile, or nested)
 * takes no turn.
 *
 * Inside such a call stdio's own reads and writes go through the agent's
 * read and write (agent_rr_stdio.c): the thread that fills or flushes a
 * stream is the recorded one now, so they are recorded and replayed like
 * the program's own (a replayed fgets gets the recorded bytes).
 *
 * The flushes no call on a stream orders (RR_F_STDIO_FLUSH, recordings
 * made since; agent_rr_stdio_flushes): fflush(NULL) flushes stdout and
 * stderr first, each in its turn, then, holding them, the rest as glibc
 * does; the flush
 * at exit (glibc's _IO_cleanup, after the exit handlers and destructors,
 * with no lock) finds them empty, because the agent's destructor flushed
 * them in their turns before it (agent_rr_stdio_exit_flush); fclose
 * flushes its stream in its turn (agent_rr_fd.c); dprintf's writes (a
 * FILE on its stack, no lock) go through the agent's write, which orders
 * those to 1 and 2 (agent_rr_outturn.c). Before, each of these wrote
 * for real in a replay wherever the thread got there: a line flushed at
 * exit came before or after another thread's lines.
 *
 * Not ordered: calls before the first pthread_create (the process has one
 * thread: agent_rr_stdio.c routes them alone), the streams other than
 * stdout and stderr that fflush(NULL) and the flush at exit write, what a
 * thread adds to stdout after the agent's destructor flushed it,
 * wide-character calls, the _unlocked forms outside a flockfile, calls
 * glibc makes inside itself (error, warn, psignal, the messages of
 * assert), streams the program locks itself (__fsetlocking
 * FSETLOCKING_BYCALLER). Their reads and writes happen for real in a
 * replay, as before.
 *
 * Agent rules: no malloc; errno as the real call left it; the real
 * functions are found at startup (the agent imports no stdio), or with
 * dlsym at the first call when another library's constructor prints.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "agent_rr.h"

#define ST_IO_USER_LOCK 0x8000 /* FILE._flags: the program locks it (FSETLOCKING_BYCALLER) */

/* glibc's _IO_lock_t (sysdeps/nptl/stdio-lock.h): the lock word, the
 * recursion count, the owner (its struct pthread, pthread_self). */
struct st_io_lock {
	int lock;
	int cnt;
	void *owner;
};

int agent_rr_stdio_turns; /* set by agent_rr_init: sync mode orders streams */
int agent_rr_stdio_flushes; /* set by agent_rr_init: and the flushes (RR_F_STDIO_FLUSH) */
/* Inside a call that took its stream's turn: stdio's reads and writes are
 * routed (agent_rr_stdio.c) */
__attribute__((tls_model("initial-exec"))) __thread int agent_rr_stdio_turn_held;

static FILE **st_stdin, **st_stdout, **st_stderr;
/* glibc's own standard streams (never freed, unlike a FILE the program
 * made its stdout: the exit flush takes these) */
static FILE *st_libc_stdout, *st_libc_stderr;
static void (*real_flockfile)(FILE *);
static void (*real_funlockfile)(FILE *);
static int (*real_ftrylockfile)(FILE *);
static int (*real_vfprintf)(FILE *, const char *, va_list);
static int (*real_vfprintf_chk)(FILE *, int, const char *, va_list);
static int (*real_fputs)(const char *, FILE *);
static int (*real_puts)(const char *);
static int (*real_fputc)(int, FILE *);
static int (*real_putc)(int, FILE *);
static size_t (*real_fwrite)(const void *, size_t, size_t, FILE *);
static int (*real_fflush)(FILE *);
static char *(*real_fgets)(char *, int, FILE *);
static char *(*real_fgets_chk)(char *, size_t, int, FILE *);
static size_t (*real_fread)(void *, size_t, size_t, FILE *);
static size_t (*real_fread_chk)(void *, size_t, size_t, size_t, FILE *);
static int (*real_fgetc)(FILE *);
static int (*real_getc)(FILE *);
static ssize_t (*real_getdelim)(char **, size_t *, int, FILE *);
static int (*real_ungetc)(int, FILE *);
static int (*real_vfscanf)(FILE *, const char *, va_list);
static int (*real_isoc99_vfscanf)(FILE *, const char *, va_list);
static int (*real_fseek)(FILE *, long, int);
static int (*real_fseeko)(FILE *, off_t, int);
static long (*real_ftell)(FILE *);
static off_t (*real_ftello)(FILE *);
static void (*real_rewind)(FILE *);
static void (*real_perror)(const char *);
static int (*real_vdprintf)(int, const char *, va_list);
static int (*real_vdprintf_chk)(int, int, const char *, va_list);

/* dlsym when the constructor has not run yet (busy: it may allocate) */
static void *st_resolve(void **var, const char *name, void *handle)
{
	void *p = __atomic_load_n(var, __ATOMIC_RELAXED);

	if (p)
		return p;
	agent_self.busy++;
	p = dlsym(handle, name);
	agent_self.busy--;
	__atomic_store_n(var, p, __ATOMIC_RELAXED);
	return p;
}
#define ST_REAL(var, name) st_resolve((void **)&(var), name, RTLD_NEXT)
/* The standard streams as the program sees them: a program linked
 * without PIE has its own copies of stdout and friends (copy relocations),
 * which libc uses too; RTLD_DEFAULT finds the program's first. */
#define ST_STD(var, name) (*(FILE **)st_resolve((void **)&(var), name, RTLD_DEFAULT))

__attribute__((constructor)) static void agent_rr_stdio_turn_resolve(void)
{
	ST_REAL(real_flockfile, "flockfile");
	ST_REAL(real_funlockfile, "funlockfile");
	ST_REAL(real_ftrylockfile, "ftrylockfile");
	ST_REAL(real_vfprintf, "vfprintf");
	ST_REAL(real_vfprintf_chk, "__vfprintf_chk");
	ST_REAL(real_fputs, "fputs");
	ST_REAL(real_puts, "puts");
	ST_REAL(real_fputc, "fputc");
	ST_REAL(real_putc, "putc");
	ST_REAL(real_fwrite, "fwrite");
	ST_REAL(real_fflush, "fflush");
	ST_REAL(real_fgets, "fgets");
	ST_REAL(real_fgets_chk, "__fgets_chk");
	ST_REAL(real_fread, "fread");
	ST_REAL(real_fread_chk, "__fread_chk");
	ST_REAL(real_fgetc, "fgetc");
	ST_REAL(real_getc, "getc");
	ST_REAL(real_getdelim, "getdelim");
	ST_REAL(real_ungetc, "ungetc");
	ST_REAL(real_vfscanf, "vfscanf");
	ST_REAL(real_isoc99_vfscanf, "__isoc99_vfscanf");
	ST_REAL(real_fseek, "fseek");
	ST_REAL(real_fseeko, "fseeko");
	ST_REAL(real_ftell, "ftell");
	ST_REAL(real_ftello, "ftello");
	ST_REAL(real_rewind, "rewind");
	ST_REAL(real_perror, "perror");
	ST_REAL(real_vdprintf, "vdprintf");
	ST_REAL(real_vdprintf_chk, "__vdprintf_chk");
	st_resolve((void **)&st_libc_stdout, "_IO_2_1_stdout_", RTLD_NEXT);
	st_resolve((void **)&st_libc_stderr, "_IO_2_1_stderr_", RTLD_NEXT);
	st_resolve((void **)&st_stdin, "stdin", RTLD_DEFAULT);
	st_resolve((void **)&st_stdout, "stdout", RTLD_DEFAULT);
	st_resolve((void **)&st_stderr, "stderr", RTLD_DEFAULT);
}

/* Recording, a try with patience: ms milliseconds for the lock at most
 * (the exit flush: a thread blocked in a write holding stdout's lock would
 * otherwise hold the exit up for good; glibc's flush at exit takes no
 * lock). The naps are raw: the agent's nanosleep records sleeps. */
static int st_trylock_for(FILE *f, int ms)
{
	struct timespec nap = {0, 1000000};

	for (int i = 0;; i++) {
		if (!real_ftrylockfile(f))
			return 0;
		if (i >= ms)
			return EBUSY;
		syscall(SYS_nanosleep, &nap, NULL);
	}
}

/*
 * Take f's turn and its lock when the call must be ordered: 1 (then
 * st_end must follow the real call), else 0 (make the call as it is).
 * try: ftrylockfile's form, for up to try - 1 ms while recording; *busy
 * gets its recorded failure.
 */
static int st_begin_try(FILE *f, int try, int *busy)
{
	struct agent_thread *t;
	struct st_io_lock *lk;
	uint32_t obj;
	int mode, saved, rc;

	if (AGENT_LIKELY(!agent_rr_stdio_turns) || !f ||
	    !__atomic_load_n(&agent_rr_threads_made, __ATOMIC_RELAXED))
		return 0;
	mode = __atomic_load_n(&agent_rr_mode, __ATOMIC_ACQUIRE);
	if (!(mode & (RR_MODE_RECORD | RR_MODE_REPLAY)) || (mode & RR_MODE_SERIAL))
		return 0;
	lk = (struct st_io_lock *)f->_lock;
	if ((f->_flags & ST_IO_USER_LOCK) || !lk ||
	    __atomic_load_n(&lk->owner, __ATOMIC_RELAXED) == (void *)pthread_self())
		return 0;
	if (!ST_REAL(real_flockfile, "flockfile") || !ST_REAL(real_funlockfile, "funlockfile") ||
	    (try && !ST_REAL(real_ftrylockfile, "ftrylockfile")))
		return 0;
	t = agent_enter();
	if (!t)
		return 0;
	obj = agent_lock_index(t, f, LOCK_TYPE_MUTEX, AGENT_RET_IP());
	if (!obj)
		return 0;
	saved = errno;
	if (mode & RR_MODE_RECORD) {
		if (try) {
			rc = st_trylock_for(f, try - 1);
			agent_rr_rec_sync(t, obj, OP_ACQUIRE_TRY, rc, 1);
		} else {
			real_flockfile(f);
			agent_rr_rec_sync(t, obj, OP_ACQUIRE, 0, 1);
			rc = 0;
		}
	} else {
		rc = agent_rr_rep_begin(t, obj, try ? OP_ACQUIRE_TRY : OP_ACQUIRE, f, 1);
		if (!rc)
			real_flockfile(f);
		agent_rr_rep_end(t, rc);
	}
	errno = saved;
	if (busy)
		*busy = rc;
	if (rc)
		return 0;
	agent_rr_stdio_turn_held++;
	return 1;
}

static inline int st_begin(FILE *f)
{
	return AGENT_LIKELY(!agent_rr_stdio_turns) ? 0 : st_begin_try(f, 0, NULL);
}

static inline void st_end(FILE *f, int on)
{
	int saved;

	if (!on)
		return;
	saved = errno;
	agent_rr_stdio_turn_held--;
	real_funlockfile(f);
	errno = saved;
}

/* ---- the program's own locking ---- */

AGENT_EXPORT void flockfile(FILE *f)
{
	/* the turn is the lock: the program's funlockfile gives it back */
	if (st_begin(f)) {
		agent_rr_stdio_turn_held--;
		return;
	}
	if (ST_REAL(real_flockfile, "flockfile"))
		real_flockfile(f);
}

AGENT_EXPORT int ftrylockfile(FILE *f)
{
	int busy = 0;

	if (AGENT_UNLIKELY(agent_rr_stdio_turns)) {
		if (st_begin_try(f, 1, &busy)) {
			agent_rr_stdio_turn_held--;
			return 0;
		}
		if (busy)
			return 1;
	}
	return ST_REAL(real_ftrylockfile, "ftrylockfile") ? real_ftrylockfile(f) : 1;
}

/* ---- the interposers: each is one of these ---- */

/*
 * The body of an interposer of a call on stream F: the real function (var,
 * found by name) called as EXPR with F's turn taken around it. When the
 * real function cannot be found, FAIL is returned with errno ENOSYS.
 * ST_CALL: a call whose failure is EOF; ST_CALL_VOID: one returning
 * nothing; ST_CALL_VA: a variadic one (fprintf, scanf...), whose EXPR
 * names ap, the va_list of its arguments after LAST.
 */
#define ST_CALL_OR(type, fail, f, var, name, expr)                                                 \
	do {                                                                                       \
		type r_;                                                                           \
		int on_;                                                                           \
                                                                                                   \
		if (!ST_REAL(var, name)) {                                                         \
			errno = ENOSYS;                                                            \
			return fail;                                                               \
		}                                                                                  \
		on_ = st_begin(f);                                                                 \
		r_ = (expr);                                                                       \
		st_end(f, on_);                                                                    \
		return r_;                                                                         \
	} while (0)

#define ST_CALL(type, f, var, name, expr) ST_CALL_OR(type, (type)EOF, f, var, name, expr)

#define ST_CALL_VOID(f, var, name, expr)                                                           \
	do {                                                                                       \
		int on_;                                                                           \
                                                                                                   \
		if (!ST_REAL(var, name)) {                                                         \
			errno = ENOSYS;                                                            \
			return;                                                                    \
		}                                                                                  \
		on_ = st_begin(f);                                                                 \
		(expr);                                                                            \
		st_end(f, on_);                                                                    \
	} while (0)

#define ST_CALL_VA(type, fail, f, last, var, name, expr)                                           \
	do {                                                                                       \
		va_list ap;                                                                        \
		type r_;                                                                           \
		int on_;                                                                           \
                                                                                                   \
		if (!ST_REAL(var, name)) {                                                         \
			errno = ENOSYS;                                                            \
			return fail;                                                               \
		}                                                                                  \
		va_start(ap, last);                                                                \
		on_ = st_begin(f);                                                                 \
		r_ = (expr);                                                                       \
		st_end(f, on_);                                                                    \
		va_end(ap);                                                                        \
		return r_;                                                                         \
	} while (0)

/* ---- output ---- */

AGENT_EXPORT int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	ST_CALL(int, f, real_vfprintf, "vfprintf", real_vfprintf(f, fmt, ap));
}

AGENT_EXPORT int fprintf(FILE *f, const char *fmt, ...)
{
	ST_CALL_VA(int, -1, f, fmt, real_vfprintf, "vfprintf", real_vfprintf(f, fmt, ap));
}

AGENT_EXPORT int vprintf(const char *fmt, va_list ap)
{
	FILE *f = ST_STD(st_stdout, "stdout");

	ST_CALL(int, f, real_vfprintf, "vfprintf", real_vfprintf(f, fmt, ap));
}

AGENT_EXPORT int printf(const char *fmt, ...)
{
	FILE *f = ST_STD(st_stdout, "stdout");

	ST_CALL_VA(int, -1, f, fmt, real_vfprintf, "vfprintf", real_vfprintf(f, fmt, ap));
}

AGENT_EXPORT int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	ST_CALL(int, f, real_vfprintf_chk, "__vfprintf_chk", real_vfprintf_chk(f, flag, fmt, ap));
}

AGENT_EXPORT int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	ST_CALL_VA(int, -1, f, fmt, real_vfprintf_chk, "__vfprintf_chk",
		   real_vfprintf_chk(f, flag, fmt, ap));
}

AGENT_EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
	FILE *f = ST_STD(st_stdout, "stdout");

	ST_CALL(int, f, real_vfprintf_chk, "__vfprintf_chk", real_vfprintf_chk(f, flag, fmt, ap));
}

AGENT_EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
	FILE *f = ST_STD(st_stdout, "stdout");

	ST_CALL_VA(int, -1, f, fmt, real_vfprintf_chk, "__vfprintf_chk",
		   real_vfprintf_chk(f, flag, fmt, ap));
}

AGENT_EXPORT int fputs(const char *s, FILE *f)
{
	ST_CALL(int, f, real_fputs, "fputs", real_fputs(s, f));
}

AGENT_EXPORT int puts(const char *s)
{
	FILE *f = ST_STD(st_stdout, "stdout");

	ST_CALL(int, f, real_puts, "puts", real_puts(s));
}

AGENT_EXPORT int fputc(int c, FILE *f)
{
	ST_CALL(int, f, real_fputc, "fputc", real_fputc(c, f));
}

AGENT_EXPORT int putc(int c, FILE *f)
{
	ST_CALL(int, f, real_putc, "putc", real_putc(c, f));
}

AGENT_EXPORT int _IO_putc(int c, FILE *f) __attribute__((alias("putc"), copy(putc)));

AGENT_EXPORT int putchar(int c)
{
	FILE *f = ST_STD(st_stdout, "stdout");

	ST_CALL(int, f, real_putc, "putc", real_putc(c, f));
}

AGENT_EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	ST_CALL_OR(size_t, 0, f, real_fwrite, "fwrite", real_fwrite(p, size, n, f));
}

/* fflush(f) in f's turn (agent_rr.h) */
void agent_rr_stdio_flush(FILE *f)
{
	int on;

	if (!ST_REAL(real_fflush, "fflush"))
		return;
	on = st_begin(f);
	real_fflush(f);
	st_end(f, on);
}

/* The standard streams in their turns, when they are open (a stream
 * fclose closed has no descriptor; its FILE stays, glibc's own). try:
 * 0 waits for the lock, else st_begin_try's patience + 1; a stream whose
 * lock stayed busy (as recorded) is not flushed here: fflush would wait
 * for the lock, and glibc's flush at exit takes none. */
static void st_flush_std(FILE *out, FILE *err, int try)
{
	FILE *std[2] = {out, err};

	for (int i = 0; i < 2; i++) {
		FILE *f = std[i];
		int on, busy = 0;

		if (!f || f->_fileno < 0 || (i && f == std[0]))
			continue;
		on = try ? st_begin_try(f, try, &busy) : st_begin(f);
		if (busy)
			continue;
		real_fflush(f);
		st_end(f, on);
	}
}

/*
 * fflush(NULL) flushes every stream, each under its lock in glibc's list
 * order, no turn taken. stdout and stderr are flushed in their turns
 * first (stdout, then stderr), and their locks are kept around the real
 * call, which then finds them empty and takes them again as their owner.
 * Let go between, a replay could hang: the real call waits for stderr's
 * lock, which another thread holds in its turn while it waits for the
 * standard output's turn (agent_rr_outturn.c) that this thread's next
 * write must pass on first (tests/integ/300, flushall, 2 replays of 10
 * under ASan). The other streams are flushed by the real call as before,
 * not routed (their contents at this point are not ordered). The cost:
 * a thread that holds stderr's lock (flockfile) and prints to stdout while
 * another calls fflush(NULL) waits for good, as one holding stdout's and
 * printing to stderr would wait without spool.
 */
static int st_flush_all(void)
{
	FILE *out = ST_STD(st_stdout, "stdout"), *err = ST_STD(st_stderr, "stderr");
	int on_out = 0, on_err = 0, held, r;

	if (out && out->_fileno >= 0) {
		on_out = st_begin(out);
		real_fflush(out);
	}
	if (err && err != out && err->_fileno >= 0) {
		on_err = st_begin(err);
		real_fflush(err);
	}
	held = agent_rr_stdio_turn_held;
	agent_rr_stdio_turn_held = 0;
	r = real_fflush(NULL);
	agent_rr_stdio_turn_held = held;
	st_end(err, on_err);
	st_end(out, on_out);
	return r;
}

AGENT_EXPORT int fflush(FILE *f)
{
	if (!f && AGENT_UNLIKELY(agent_rr_stdio_flushes) && ST_REAL(real_fflush, "fflush"))
		return st_flush_all();
	ST_CALL(int, f, real_fflush, "fflush", real_fflush(f));
}

/*
 * The agent's destructor (agent_main.c, agent_stop): the process is
 * exiting (exit, or main returned) in this thread; the program's exit
 * handlers and its own destructors have run. glibc's flush at exit comes
 * after and takes no lock and no turn: flush stdout and stderr here, in
 * their turns (a replay waits for the recorded one). Recording, the lock
 * is tried for 200 ms; a replay follows the recorded outcome.
 */
void agent_rr_stdio_exit_flush(void)
{
	if (AGENT_LIKELY(!agent_rr_stdio_flushes) || !ST_REAL(real_fflush, "fflush") ||
	    !ST_REAL(real_ftrylockfile, "ftrylockfile"))
		return;
	st_flush_std(st_libc_stdout, st_libc_stderr, 201);
}

/* ---- dprintf: a FILE of its own on the stack, no lock, no turn: its
 * writes go through the agent's write (agent_rr_stdio.c), which records
 * them and orders those to 1 and 2 ---- */

#define ST_ROUTED(var, name, expr)                                                                 \
	do {                                                                                       \
		int r_;                                                                            \
                                                                                                   \
		if (!ST_REAL(var, name)) {                                                         \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		if (AGENT_LIKELY(!agent_rr_stdio_flushes))                                         \
			return (expr);                                                             \
		agent_rr_stdio_turn_held++;                                                        \
		r_ = (expr);                                                                       \
		agent_rr_stdio_turn_held--;                                                        \
		return r_;                                                                         \
	} while (0)

AGENT_EXPORT int vdprintf(int fd, const char *fmt, va_list ap)
{
	ST_ROUTED(real_vdprintf, "vdprintf", real_vdprintf(fd, fmt, ap));
}

AGENT_EXPORT int dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vdprintf(fd, fmt, ap);
	va_end(ap);
	return r;
}

AGENT_EXPORT int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap)
{
	ST_ROUTED(real_vdprintf_chk, "__vdprintf_chk", real_vdprintf_chk(fd, flag, fmt, ap));
}

AGENT_EXPORT int __dprintf_chk(int fd, int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = __vdprintf_chk(fd, flag, fmt, ap);
	va_end(ap);
	return r;
}

/* perror writes to stderr under its lock */
AGENT_EXPORT void perror(const char *s)
{
	FILE *f = ST_STD(st_stderr, "stderr");

	ST_CALL_VOID(f, real_perror, "perror", real_perror(s));
}

/* ---- input ---- */

/* A library's constructor reading before the agent's: its stdio reads
 * become early reads (agent_rr_stdio_early) */
#define ST_EARLY()                                                                                 \
	do {                                                                                       \
		if (AGENT_UNLIKELY(!agent_rr_started))                                             \
			agent_rr_stdio_early();                                                    \
	} while (0)


AGENT_EXPORT char *fgets(char *s, int n, FILE *f)
{
	ST_EARLY();
	ST_CALL_OR(char *, NULL, f, real_fgets, "fgets", real_fgets(s, n, f));
}

AGENT_EXPORT char *__fgets_chk(char *s, size_t size, int n, FILE *f)
{
	ST_EARLY();
	ST_CALL_OR(char *, NULL, f, real_fgets_chk, "__fgets_chk", real_fgets_chk(s, size, n, f));
}

AGENT_EXPORT size_t fread(void *p, size_t size, size_t n, FILE *f)
{
	ST_EARLY();
	ST_CALL_OR(size_t, 0, f, real_fread, "fread", real_fread(p, size, n, f));
}

AGENT_EXPORT size_t __fread_chk(void *p, size_t psize, size_t size, size_t n, FILE *f)
{
	ST_EARLY();
	ST_CALL_OR(size_t, 0, f, real_fread_chk, "__fread_chk",
		   real_fread_chk(p, psize, size, n, f));
}

AGENT_EXPORT int fgetc(FILE *f)
{
	ST_EARLY();
	ST_EARLY();
	ST_CALL(int, f, real_fgetc, "fgetc", real_fgetc(f));
}

AGENT_EXPORT int getc(FILE *f)
{
	ST_CALL(int, f, real_getc, "getc", real_getc(f));
}

AGENT_EXPORT int _IO_getc(FILE *f) __attribute__((alias("getc"), copy(getc)));

AGENT_EXPORT int getchar(void)
{
	FILE *f = ST_STD(st_stdin, "stdin");

	ST_EARLY();
	ST_CALL(int, f, real_getc, "getc", real_getc(f));
}

AGENT_EXPORT ssize_t getdelim(char **line, size_t *n, int delim, FILE *f)
{
	ST_EARLY();
	ST_CALL(ssize_t, f, real_getdelim, "getdelim", real_getdelim(line, n, delim, f));
}

AGENT_EXPORT ssize_t __getdelim(char **line, size_t *n, int delim, FILE *f)
    __attribute__((alias("getdelim"), copy(getdelim)));

AGENT_EXPORT ssize_t getline(char **line, size_t *n, FILE *f)
{
	ST_EARLY();
	ST_CALL(ssize_t, f, real_getdelim, "getdelim", real_getdelim(line, n, '\n', f));
}

AGENT_EXPORT int ungetc(int c, FILE *f)
{
	ST_CALL(int, f, real_ungetc, "ungetc", real_ungetc(c, f));
}

/* (stdio.h renames fscanf, vfscanf and scanf to their __isoc99_ forms
 * under -std=gnu11: the plain names are given with asm labels) */
AGENT_EXPORT int st_vfscanf(FILE *f, const char *fmt, va_list ap) __asm__("vfscanf");
AGENT_EXPORT int st_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");
AGENT_EXPORT int st_scanf(const char *fmt, ...) __asm__("scanf");

AGENT_EXPORT int st_vfscanf(FILE *f, const char *fmt, va_list ap)
{
	ST_EARLY();
	ST_CALL(int, f, real_vfscanf, "vfscanf", real_vfscanf(f, fmt, ap));
}

AGENT_EXPORT int __isoc99_vfscanf(FILE *f, const char *fmt, va_list ap)
{
	ST_EARLY();
	ST_CALL(int, f, real_isoc99_vfscanf, "__isoc99_vfscanf",
		real_isoc99_vfscanf(f, fmt, ap));
}

AGENT_EXPORT int st_fscanf(FILE *f, const char *fmt, ...)
{
	ST_EARLY();
	ST_CALL_VA(int, EOF, f, fmt, real_vfscanf, "vfscanf", real_vfscanf(f, fmt, ap));
}

AGENT_EXPORT int __isoc99_fscanf(FILE *f, const char *fmt, ...)
{
	ST_EARLY();
	ST_CALL_VA(int, EOF, f, fmt, real_isoc99_vfscanf, "__isoc99_vfscanf",
		   real_isoc99_vfscanf(f, fmt, ap));
}

AGENT_EXPORT int __isoc99_scanf(const char *fmt, ...)
{
	FILE *f = ST_STD(st_stdin, "stdin");

	ST_EARLY();
	ST_CALL_VA(int, EOF, f, fmt, real_isoc99_vfscanf, "__isoc99_vfscanf",
		   real_isoc99_vfscanf(f, fmt, ap));
}

AGENT_EXPORT int st_scanf(const char *fmt, ...)
{
	FILE *f = ST_STD(st_stdin, "stdin");

	ST_EARLY();
	ST_CALL_VA(int, EOF, f, fmt, real_vfscanf, "vfscanf", real_vfscanf(f, fmt, ap));
}

/* ---- position: a seek flushes what the stream holds, a tell reads its
 * state ---- */

AGENT_EXPORT int fseek(FILE *f, long off, int whence)
{
	ST_CALL(int, f, real_fseek, "fseek", real_fseek(f, off, whence));
}

AGENT_EXPORT int fseeko(FILE *f, off_t off, int whence)
{
	ST_CALL(int, f, real_fseeko, "fseeko", real_fseeko(f, off, whence));
}

AGENT_EXPORT int fseeko64(FILE *f, off_t off, int whence)
    __attribute__((alias("fseeko"), copy(fseeko)));

AGENT_EXPORT long ftell(FILE *f)
{
	ST_CALL(long, f, real_ftell, "ftell", real_ftell(f));
}

AGENT_EXPORT off_t ftello(FILE *f)
{
	ST_CALL(off_t, f, real_ftello, "ftello", real_ftello(f));
}

AGENT_EXPORT off_t ftello64(FILE *f) __attribute__((alias("ftello"), copy(ftello)));

AGENT_EXPORT void rewind(FILE *f)
{
	ST_CALL_VOID(f, real_rewind, "rewind", real_rewind(f));
}
