// SPDX-License-Identifier: MIT
/*
 * agent_rr_stdio.c - the reads and writes glibc's stdio makes inside
 * itself (fread, fgets, getc, scanf; printf, fwrite, puts, a flush at
 * exit), recorded and replayed in serial mode like the program's own read
 * and write (doc/record.md "Standard I/O inside libc").
 *
 * stdio reaches the kernel through its file's jump table: __read and
 * __write (slots 14 and 15 of struct _IO_jump_t, a layout glibc has kept
 * since libio began), which call glibc's internal __read and __write,
 * past the PLT, so no preloaded read or write sees them. The agent puts
 * its own functions into those two slots of the two tables glibc exports,
 * _IO_file_jumps (every FILE fopen, fdopen and the standard streams use)
 * and _IO_wfile_jumps (wide streams), which then call the agent's read
 * and write: a replayed fgets of a pipe gets the recorded bytes (and
 * takes as many from the real pipe, agent_rr_tree_drain) instead of
 * waiting for a writer that may not run, a printf to spool's stdout takes
 * its recorded place among the writes of the other processes of a tree
 * (agent_rr_tree_wbegin), and a file read through stdio need not be there
 * any more (a replayed read moves a file's offset as the recorded one did,
 * agent_rr_stdio_skip). glibc checks the address of a FILE's table (it must lie in its
 * __libc_IO_vtables section), not the functions in it: the tables stay
 * where they are, only two words of each change (the tables are in
 * glibc's RELRO: mprotect writable for the two stores, then read-only).
 *
 * What stays as it was: a FILE opened with glibc's "c" flag (its internal
 * files: /etc/hosts, /etc/passwd, ...; _IO_FLAGS2_NOTCANCEL) calls glibc's
 * functions; fopencookie's streams call the program's own functions, and
 * memory streams move nothing through the kernel. popen's streams have a
 * table of their own holding glibc's two functions: routed too, once found
 * (agent_rr_stdio_adopt). Sync mode does this only while the process has
 * one thread (agent_rr_threads_made): afterwards glibc's FILE lock (an
 * internal lock no interposer sees) decides which thread fills or flushes
 * a shared FILE, so the call would land in another thread's log than
 * recorded.
 *
 * Serial mode: the calls are made with the FILE's lock held, so they are
 * no switch points and never give the run token up (agent_rr_in_stdio): a
 * thread given the token there would block on that lock in the kernel,
 * holding the token the lock's owner needs. A stdio read that waits for a
 * writer among the threads of its own process keeps the others waiting
 * (as it did when it was not seen); the watchdog reports it. One that
 * waits for the outside world (a terminal, a shell's pipe) is not stuck:
 * the agent's read and write publish the descriptor (agent_serial_stdio_io)
 * for the watchdogs (agent_serial_peer.c). A snapshot due
 * while it waits is taken by the holder itself (agent_serial_stdio_wait,
 * from the agent's read).
 *
 * Set up once per process image at the agent's start (a fork child has
 * its parent's tables); a replay does it only when the recording did
 * (RR_F_STDIO in its flags, RR_O_STDIO in the replay's options).
 *
 * Agent rules: no malloc; errno as stdio's own functions leave it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_rr.h"

/* struct _IO_jump_t: __dummy, __dummy2, __finish, __overflow, __underflow,
 * __uflow, __pbackfail, __xsputn, __xsgetn, __seekoff, __seekpos,
 * __setbuf, __sync, __doallocate, __read, __write, ... */
#define RR_JUMP_READ 14
#define RR_JUMP_WRITE 15
#define RR_IO_ERR_SEEN 0x20	       /* FILE._flags: an error was seen */
#define RR_IO_FLAGS2_NOTCANCEL 0x2     /* FILE._flags2: glibc's "c" flag */

__attribute__((tls_model("initial-exec"))) __thread int agent_rr_in_stdio;

static int rr_stdio_hooked; /* this image's tables carry the agent's functions */
static int rr_stdio_solo; /* sync mode: only while the process has one thread */
static void **rr_fj, **rr_wj;	/* the two tables glibc exports */
/* hooked before the agent's constructor, not (yet) by its choice */
static int rr_stdio_early_only;
static void **rr_adopted;	/* popen's table, once routed (agent_rr_stdio_adopt) */
static int rr_adopt_lock;	/* one thread pokes a table at a time */
int agent_rr_threads_made;
static ssize_t (*rr_libc_read)(FILE *, void *, ssize_t);
static ssize_t (*rr_libc_write)(FILE *, const void *, ssize_t);

/* glibc's _IO_file_read, through the agent's read. */
static ssize_t rr_stdio_read(FILE *f, void *buf, ssize_t n)
{
	ssize_t r;

	if (f->_flags2 & RR_IO_FLAGS2_NOTCANCEL || n < 0)
		return rr_libc_read(f, buf, n);
	/* sync mode: once a second thread may exist, which thread's read
	 * fills a shared FILE (or flushes it) is glibc's lock's choice, not
	 * recorded, unless the call took its stream's turn
	 * (agent_rr_stdio_turn.c) */
	if (rr_stdio_solo && __atomic_load_n(&agent_rr_threads_made, __ATOMIC_RELAXED) &&
	    !agent_rr_stdio_turn_held)
		return rr_libc_read(f, buf, n);
	agent_rr_in_stdio++;
	r = read(f->_fileno, buf, (size_t)n);
	agent_rr_in_stdio--;
	return r;
}

/* glibc's _IO_new_file_write, through the agent's write: all of it or an
 * error (the FILE's error flag), the FILE's offset moved by what went. */
static ssize_t rr_stdio_write(FILE *f, const void *data, ssize_t n)
{
	const char *p = data;
	ssize_t left = n;

	if (f->_flags2 & RR_IO_FLAGS2_NOTCANCEL || n < 0)
		return rr_libc_write(f, data, n);
	if (rr_stdio_solo && __atomic_load_n(&agent_rr_threads_made, __ATOMIC_RELAXED) &&
	    !agent_rr_stdio_turn_held)
		return rr_libc_write(f, data, n);
	agent_rr_in_stdio++;
	while (left > 0) {
		ssize_t k = write(f->_fileno, p, (size_t)left);

		/* (0 for a write of more than 0 bytes: glibc would loop on it
		 * for good; a damaged log could say so) */
		if (k <= 0) {
			f->_flags |= RR_IO_ERR_SEEN;
			break;
		}
		left -= k;
		p += k;
	}
	agent_rr_in_stdio--;
	n -= left;
	if (f->_offset >= 0)
		f->_offset += n;
	return n;
}

/*
 * Replay: the bytes of a stdio read came from the log, and the kernel's
 * offset of a seekable file did not move. stdio keeps its own idea of
 * where it is and seeks relative to the kernel's (ftell is an lseek of 0
 * from the current offset minus what its buffer holds; a FILE read and
 * then written seeks back by what it had read ahead: binutils' as writes
 * its object file so, and ended with EINVAL): move it as the read did. A
 * pipe or a terminal has no offset (ESPIPE, nothing done).
 */
void agent_rr_stdio_skip(int fd, size_t n)
{
	int saved = errno;

	syscall(SYS_lseek, fd, (long)n, SEEK_CUR);
	errno = saved;
}

/* Whether addr lies in an executable segment of the object that holds
 * libc's read (dl_iterate_phdr's callback). */
struct rr_stdio_find {
	uintptr_t libc_fn, a, b;
	uintptr_t relro, relro_end; /* libc's pages made read-only after relocation */
	int ok;
};

static int rr_in_text(uintptr_t base, const ElfW(Phdr) *ph, int n, uintptr_t x)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    x >= base + ph[i].p_vaddr && x - (base + ph[i].p_vaddr) < ph[i].p_memsz)
			return 1;
	return 0;
}

static int rr_stdio_phdr(struct dl_phdr_info *info, size_t size, void *data)
{
	struct rr_stdio_find *q = data;

	(void)size;
	if (!rr_in_text(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, q->libc_fn))
		return 0;
	q->ok = rr_in_text(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, q->a) &&
		rr_in_text(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, q->b);
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
			q->relro = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			q->relro_end = q->relro + info->dlpi_phdr[i].p_memsz;
		}
	return 1;
}

/* Store v into *slot of glibc's RELRO: its page writable for the store
 * only, read-only again after, as ld.so left it (the page lies wholly in
 * the RELRO range: ld.so protects the whole pages of it). */
static uintptr_t rr_pgsz, rr_relro, rr_relro_end;

static int rr_poke(void **slot, void *v)
{
	uintptr_t pg = (uintptr_t)slot & ~(rr_pgsz - 1);

	if (pg < rr_relro || pg + rr_pgsz > rr_relro_end ||
	    mprotect((void *)pg, rr_pgsz, PROT_READ | PROT_WRITE))
		return -1;
	__atomic_store_n(slot, v, __ATOMIC_RELEASE);
	mprotect((void *)pg, rr_pgsz, PROT_READ);
	return 0;
}

int agent_rr_stdio_hook(int solo)
{
	void **fj, **wj, *libc_read;
	struct rr_stdio_find q;
	int saved = errno;

	if (rr_stdio_hooked) {
		/* (hooked before the constructor: kept, in the mode asked now) */
		rr_stdio_solo = solo;
		rr_stdio_early_only = 0;
		return 0;
	}
	memset(&q, 0, sizeof(q));
	agent_self.busy++;
	fj = dlsym(RTLD_NEXT, "_IO_file_jumps");
	wj = dlsym(RTLD_NEXT, "_IO_wfile_jumps");
	libc_read = dlsym(RTLD_NEXT, "read");
	agent_self.busy--;
	/* Both tables name the same two functions, in glibc's text. */
	if (!fj || !wj || !libc_read || !fj[RR_JUMP_READ] || !fj[RR_JUMP_WRITE] ||
	    fj[RR_JUMP_READ] != wj[RR_JUMP_READ] || fj[RR_JUMP_WRITE] != wj[RR_JUMP_WRITE])
		goto out_no;
	q.libc_fn = (uintptr_t)libc_read;
	q.a = (uintptr_t)fj[RR_JUMP_READ];
	q.b = (uintptr_t)fj[RR_JUMP_WRITE];
	dl_iterate_phdr(rr_stdio_phdr, &q);
	rr_pgsz = getauxval(AT_PAGESZ);
	if (!q.ok || !rr_pgsz || (rr_pgsz & (rr_pgsz - 1)) || !q.relro)
		goto out_no;
	/* the whole pages ld.so made read-only */
	rr_relro = q.relro & ~(rr_pgsz - 1);
	rr_relro_end = q.relro_end & ~(rr_pgsz - 1);
	rr_libc_read = (ssize_t(*)(FILE *, void *, ssize_t))fj[RR_JUMP_READ];
	rr_libc_write = (ssize_t(*)(FILE *, const void *, ssize_t))fj[RR_JUMP_WRITE];
	rr_stdio_solo = solo;
	/* write first: a table half done reads through glibc, which is how
	 * every table was a moment ago */
	if (rr_poke(&fj[RR_JUMP_WRITE], (void *)rr_stdio_write) ||
	    rr_poke(&wj[RR_JUMP_WRITE], (void *)rr_stdio_write) ||
	    rr_poke(&fj[RR_JUMP_READ], (void *)rr_stdio_read) ||
	    rr_poke(&wj[RR_JUMP_READ], (void *)rr_stdio_read)) {
		/* put back what was changed */
		rr_poke(&fj[RR_JUMP_WRITE], (void *)rr_libc_write);
		rr_poke(&wj[RR_JUMP_WRITE], (void *)rr_libc_write);
		rr_poke(&fj[RR_JUMP_READ], (void *)rr_libc_read);
		goto out_no;
	}
	rr_fj = fj;
	rr_wj = wj;
	rr_stdio_hooked = 1;
	errno = saved;
	return 0;
out_no:
	agent_log("record/replay: stdio's own reads and writes are not seen (no glibc tables)");
	errno = saved;
	return -1;
}

void agent_rr_stdio_early(void)
{
	static int tried;

	if (tried || agent_rr_started)
		return;
	tried = 1;
	if (agent_rr_early_on() && agent_rr_stdio_hook(1) == 0)
		rr_stdio_early_only = 1;
}

void agent_rr_stdio_early_end(void)
{
	if (!rr_stdio_early_only)
		return;
	rr_stdio_early_only = 0;
	/* read first: the reverse of the hook's order */
	rr_poke(&rr_fj[RR_JUMP_READ], (void *)rr_libc_read);
	rr_poke(&rr_wj[RR_JUMP_READ], (void *)rr_libc_read);
	rr_poke(&rr_fj[RR_JUMP_WRITE], (void *)rr_libc_write);
	rr_poke(&rr_wj[RR_JUMP_WRITE], (void *)rr_libc_write);
	rr_stdio_hooked = 0;
}

/*
 * popen's FILEs use a table glibc does not export (_IO_proc_jumps), with
 * the same two functions in the same two slots: found on the first FILE
 * popen returns and routed the same way, so a popen'ed command's output
 * read with fgets comes from the log (a replay with --pid of the reader
 * runs no command) and a write to a popen'ed command is replayed like any
 * stdio write (no SIGPIPE from a command that does not run). A table that holds other functions (fopencookie's calls the
 * program's own functions, whose read and write are seen as they are;
 * memory streams move no bytes through the kernel) is left alone, and so
 * is one outside glibc's RELRO (rr_poke refuses it). Any thread may call
 * popen: the pokes are made under a spin lock (mprotect of one page back
 * to read-only must not fall between another thread's two calls).
 */
void agent_rr_stdio_adopt(FILE *f)
{
	void **vt;
	int saved = errno;

	if (!f || !__atomic_load_n(&rr_stdio_hooked, __ATOMIC_ACQUIRE))
		return;
	/* struct _IO_FILE_plus: the FILE, then its table */
	vt = *(void ***)(void *)((char *)f + sizeof(FILE));
	if (!vt || vt == rr_fj || vt == rr_wj || vt == __atomic_load_n(&rr_adopted, __ATOMIC_ACQUIRE))
		return;
	while (__atomic_exchange_n(&rr_adopt_lock, 1, __ATOMIC_ACQUIRE))
		syscall(SYS_sched_yield); /* (the raw call: sched_yield is recorded) */
	if (rr_adopted)
		goto out; /* (one table: popen's) */
	/* in glibc's RELRO (where its tables are), checked before the slots
	 * are read */
	if ((uintptr_t)vt < rr_relro || (uintptr_t)(vt + RR_JUMP_WRITE + 1) > rr_relro_end)
		goto out;
	if (vt[RR_JUMP_READ] != (void *)rr_libc_read || vt[RR_JUMP_WRITE] != (void *)rr_libc_write)
		goto out;
	if (rr_poke(&vt[RR_JUMP_WRITE], (void *)rr_stdio_write))
		goto out;
	if (rr_poke(&vt[RR_JUMP_READ], (void *)rr_stdio_read)) {
		rr_poke(&vt[RR_JUMP_WRITE], (void *)rr_libc_write);
		goto out;
	}
	__atomic_store_n(&rr_adopted, vt, __ATOMIC_RELEASE);
out:
	__atomic_store_n(&rr_adopt_lock, 0, __ATOMIC_RELEASE);
	errno = saved;
}
