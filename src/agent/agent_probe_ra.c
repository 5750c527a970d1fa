// SPDX-License-Identifier: MIT
/*
 * agent_probe_ra.c - function exits through the return address (probe
 * method PROBE_M_RETADDR), for functions whose ret has no 5-byte window:
 * where an exit would otherwise be an int3 (about 8 us a hit), it costs
 * about as much as a jump probe.
 *
 * At the function's entry (its trampoline runs PROBE_H_FUNC_ENTRY_RA with
 * the stack pointer at the return address) the return address is swapped
 * for agent_probe_ra_tramp and the real one goes on the thread's shadow
 * stack: {slot, real, exit probe id}. The function's ret then lands in the
 * trampoline, which records the exit (stack pointer = the slot, as an exit
 * probe at a ret sees it), writes the real address back into the slot and
 * returns there. uftrace hooks exits the same way.
 *
 * What can walk past a swapped frame, and what is done about it:
 * - Tail calls: the callee's entry finds the trampoline already in the
 *   slot; it pushes a frame of its own with the same slot and real
 *   address, and the trampoline records both exits (callee first).
 * - longjmp, siglongjmp, _longjmp, __longjmp_chk (interposed): the frames
 *   between the caller and the target stack pointer (read from the
 *   jmp_buf, demangled as glibc mangles it) are dropped: they never return.
 * - C++ exceptions and forced unwinding (_Unwind_RaiseException,
 *   _Unwind_Resume, _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind,
 *   pthread_exit): the unwinder reads return addresses to find the frames
 *   and their handlers, and knows nothing of the trampoline. Before it
 *   runs, every swapped slot above the caller gets its real address back
 *   (the frames are marked restored; their exits are not recorded while
 *   so). __cxa_begin_catch (a handler caught it) drops the restored frames
 *   below the handler (unwound) and swaps the ones above it again.
 * - Signal handlers run on the thread's stack (or an alternate one): they
 *   push above and pop back to where they started. A frame is reserved
 *   (top raised) before it is written, so a handler that interrupts a push
 *   never writes over it.
 * - A frame is never dropped at a return unless it is the one returning
 *   (or a tail caller sharing its slot): frames above it on the shadow
 *   stack (a coroutine switched away, a longjmp this code did not see) are
 *   kept, so whatever returns later still finds its real address.
 * - The shadow stack full (AGENT_RA_FRAMES deep): the return address is
 *   left alone, counted in probe_area_hdr.ra_full; that call's exit is not
 *   recorded.
 * - fork: the child has copies of the stacks and of the shadow stacks.
 * - The trampoline lives in the agent, which is never unloaded.
 *
 * The push and the trampoline's handler are compiled general-regs-only,
 * as agent_probe_hot.c: a function's floating-point arguments and return
 * values (xmm0-7, xmm0/xmm1, st0) are never touched. The trampoline saves
 * the caller-saved general registers (rax and rdx hold return values).
 */
#pragma GCC target("general-regs-only")

#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_probe.h"

/* 16384 frames of 24 bytes: 384 KiB of address space per thread that
 * probes such a function, touched as deep as it goes. */
#define AGENT_RA_FRAMES 16384u
#define AGENT_RA_RESTORED 1u
#define AGENT_RA_SILENT 2u /* a tail callee's own exit probe recorded the exit */

struct agent_ra_frame {
	uint64_t slot; /* where the return address is (the stack pointer at the entry) */
	uint64_t real; /* the return address the program put there */
	uint32_t id;   /* the exit probe (PROBE_M_RETADDR) to record */
	uint32_t flags;
};

static __thread struct agent_ra_frame *agent_ra_base;
static __thread uint32_t agent_ra_top;
static int agent_ra_on; /* a PROBE_M_RETADDR probe was placed */

/*
 * What unwinders that are not interposed (backtrace(3), gdb's bt, a
 * profiler) need to walk through a swapped frame: the real return address
 * of a slot that holds the trampoline's. The trampoline's CFI (below)
 * computes it with a DWARF expression, which can read memory but knows no
 * thread pointer and no load address: so the addresses are also kept in a
 * table at a fixed address, shared by the threads (slots are distinct
 * stack addresses), indexed by the slot: entry (slot >> 3) & mask holds
 * {slot, real}. A newer frame whose slot hashes alike takes the entry; the
 * older one's unwinding then stops at the trampoline, as without the
 * table (the expression gives 0 when the entry's slot is not the one
 * asked). The real address is stored before the slot, the slot cleared at
 * the return. When the fixed address is taken, there is no table.
 */
#define AGENT_RA_TAB 0x7cf000000000ull
#define AGENT_RA_TAB_MASK 0xffffull /* 65536 entries, 1 MiB, touched as used */

struct agent_ra_ent {
	uint64_t slot, real;
};

static struct agent_ra_ent *agent_ra_tab;

void agent_probe_ra_tramp(void);
uint64_t agent_probe_ra_ret(struct probe_regs *regs, uint64_t *slot);

/*
 * The return trampoline, entered by the probed function's ret: rsp is one
 * past the slot, which still holds the trampoline's address. Below rsp is
 * the returning function's dead frame (the caller keeps nothing below its
 * stack pointer across a call), so no red zone to step over. The stack is
 * realigned for the C handler, which writes the real address into the slot;
 * the trampoline leaves through it with every register as the function
 * left it (flags aside: dead after a ret), by an indirect jmp rather than a
 * ret: the function's ret has already taken the return-stack predictor's
 * entry for this call (mispredicted: it came here), so a second ret would
 * take its caller's entry and leave every later return of the thread one
 * off (each mispredicted); the jmp leaves the predictor in step. The slot
 * it reads is 8 bytes below the stack pointer by then, in the 128 bytes a
 * signal frame never covers. (At a ret the ABI leaves the stack pointer
 * aligned after the nine pushes: then the call needs no realignment, whose
 * writes to rsp the stack engine must synchronise; a program that breaks
 * the ABI gets it still.)
 */
/*
 * Its CFI: an unwinder that finds the trampoline as a return address looks
 * up the byte before it (a return address follows its call), so a nop
 * there opens the FDE. The state it describes is the caller's just after
 * the function returned: CFA = rsp (= the slot + 8, the caller's stack
 * pointer), every callee-saved register as the function left it, and the
 * return address (DW_CFA_val_expression, column 16) computed from the
 * CFA, which the unwinder pushes first:
 *   S = CFA - 8; E = TAB + ((S >> 3) & MASK) * 16;
 *   E->slot == S ? E->real : 0 (0 ends the walk there, as before)
 * The FDE runs up to the realignment (after it the CFA is not a fixed
 * offset from rsp): a signal or a debugger stop inside the handler call
 * still ends the walk at the trampoline.
 */
#define AGENT_RA_CFI_EXPR                                                                         \
	"0x16, 0x10, 41, "                 /* DW_CFA_val_expression r16, 41 bytes */               \
	"0x08, 0x08, 0x1c, "               /* const1u 8; minus: S */                               \
	"0x12, 0x33, 0x25, "               /* dup; lit3; shr */                                    \
	"0x10, 0xff, 0xff, 0x03, 0x1a, "   /* constu 0xffff; and */                                \
	"0x34, 0x24, "                     /* lit4; shl */                                         \
	"0x0e, 0, 0, 0, 0, 0xf0, 0x7c, 0, 0, " /* const8u AGENT_RA_TAB */                          \
	"0x22, "                           /* plus: S E */                                         \
	"0x14, 0x14, 0x06, 0x2e, "         /* over; over; deref; ne (libgcc: no pick 2 here) */    \
	"0x28, 0x08, 0x00, "               /* bra +8 (to the 0) */                                 \
	"0x23, 0x08, 0x06, 0x16, 0x13, "   /* plus_uconst 8; deref; swap; drop: real */            \
	"0x2f, 0x03, 0x00, "               /* skip +3 */                                           \
	"0x13, 0x13, 0x30"                 /* drop; drop; lit0 */
_Static_assert(AGENT_RA_TAB == 0x7cf000000000ull, "the CFI expression has the table's address");
_Static_assert(AGENT_RA_TAB_MASK == 0xffff, "the CFI expression has the table's mask");

__asm__(".text\n"
	".globl agent_probe_ra_tramp\n"
	".hidden agent_probe_ra_tramp\n"
	".type agent_probe_ra_tramp,@function\n"
	/* the name a debugger shows for the frame: it looks up the nop */
	".type agent_probe_ra_return,@function\n"
	"agent_probe_ra_return:\n"
	"	.cfi_startproc\n"
	"	.cfi_def_cfa %rsp, 0\n"
	"	.cfi_escape " AGENT_RA_CFI_EXPR "\n"
	"	nop\n"
	"agent_probe_ra_tramp:\n"
	"	sub $8, %rsp\n" /* rsp = the slot */
	"	.cfi_def_cfa_offset 8\n"
	"	push %rax\n"
	"	.cfi_def_cfa_offset 16\n"
	"	push %rcx\n"
	"	.cfi_def_cfa_offset 24\n"
	"	push %rdx\n"
	"	.cfi_def_cfa_offset 32\n"
	"	push %rsi\n"
	"	.cfi_def_cfa_offset 40\n"
	"	push %rdi\n"
	"	.cfi_def_cfa_offset 48\n"
	"	push %r8\n"
	"	.cfi_def_cfa_offset 56\n"
	"	push %r9\n"
	"	.cfi_def_cfa_offset 64\n"
	"	push %r10\n"
	"	.cfi_def_cfa_offset 72\n"
	"	push %r11\n" /* struct probe_regs, r11 lowest */
	"	.cfi_def_cfa_offset 80\n"
	"	mov %rsp, %rdi\n"
	"	lea 72(%rsp), %rsi\n"
	"	.cfi_endproc\n"
	"	test $15, %spl\n" /* aligned already (the ABI's at a ret): a plain call */
	"	jnz 1f\n"
	"	call agent_probe_ra_ret\n"
	"	jmp 2f\n"
	"1:	mov %rsp, %rax\n"
	"	and $-16, %rsp\n"
	"	push %rax\n"
	"	push %rax\n"
	"	call agent_probe_ra_ret\n"
	"	mov 8(%rsp), %rsp\n"
	"2:	pop %r11\n"
	"	pop %r10\n"
	"	pop %r9\n"
	"	pop %r8\n"
	"	pop %rdi\n"
	"	pop %rsi\n"
	"	pop %rdx\n"
	"	pop %rcx\n"
	"	pop %rax\n"
	"	lea 8(%rsp), %rsp\n"
	"	jmp *-8(%rsp)\n"
	".size agent_probe_ra_tramp, .-agent_probe_ra_tramp\n"
	".size agent_probe_ra_return, .-agent_probe_ra_return\n");

static inline uint64_t agent_ra_tramp_addr(void)
{
	return (uint64_t)(uintptr_t)agent_probe_ra_tramp;
}

static inline void agent_ra_count(uint64_t *what, uint64_t n)
{
	struct probe_area_hdr *h = agent_probe_area;

	if (h && n)
		__atomic_fetch_add(what, n, __ATOMIC_RELAXED);
}

/* mmap without libc's wrapper: the push may run in a signal handler. */
__attribute__((noinline)) static struct agent_ra_frame *agent_ra_alloc(void)
{
	long p;

	__asm__ volatile("mov %5, %%r10\n\t"
			 "mov %6, %%r8\n\t"
			 "mov %7, %%r9\n\t"
			 "syscall"
			 : "=a"(p)
			 : "0"((long)SYS_mmap), "D"(0L),
			   "S"((long)(AGENT_RA_FRAMES * sizeof(struct agent_ra_frame))),
			   "d"((long)(PROT_READ | PROT_WRITE)),
			   "r"((long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)), "r"(-1L),
			   "r"(0L)
			 : "rcx", "r11", "r10", "r8", "r9", "memory");
	if (p < 0 && p > -4096)
		return NULL;
	agent_ra_base = (struct agent_ra_frame *)p;
	return agent_ra_base;
}

void agent_probe_ra_enable(void)
{
	if (!__atomic_load_n(&agent_ra_tab, __ATOMIC_ACQUIRE)) {
		long p;

		__asm__ volatile("mov %5, %%r10\n\t"
				 "mov %6, %%r8\n\t"
				 "mov %7, %%r9\n\t"
				 "syscall"
				 : "=a"(p)
				 : "0"((long)SYS_mmap), "D"((long)AGENT_RA_TAB),
				   "S"((long)((AGENT_RA_TAB_MASK + 1) * sizeof(struct agent_ra_ent))),
				   "d"((long)(PROT_READ | PROT_WRITE)),
				   "r"((long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
					      MAP_FIXED_NOREPLACE)),
				   "r"(-1L), "r"(0L)
				 : "rcx", "r11", "r10", "r8", "r9", "memory");
		if (p == (long)AGENT_RA_TAB)
			__atomic_store_n(&agent_ra_tab, (struct agent_ra_ent *)(uintptr_t)p,
					 __ATOMIC_RELEASE);
		else if (!(p < 0 && p > -4096)) /* an old kernel put it elsewhere */
			syscall(SYS_munmap, (void *)(uintptr_t)p,
				(AGENT_RA_TAB_MASK + 1) * sizeof(struct agent_ra_ent));
	}
	__atomic_store_n(&agent_ra_on, 1, __ATOMIC_RELEASE);
}

/* The table entry of a slot, or NULL without a table. */
static inline struct agent_ra_ent *agent_ra_ent_of(uint64_t slot)
{
	struct agent_ra_ent *t = __atomic_load_n(&agent_ra_tab, __ATOMIC_RELAXED);

	return t ? &t[(slot >> 3) & AGENT_RA_TAB_MASK] : NULL;
}

void agent_probe_ra_push(uint32_t id, uint64_t sp)
{
	const struct agent_probe_rt *p = &agent_probe_by_id[id];
	uint64_t *slot = (uint64_t *)(uintptr_t)sp, cur = *slot, real = cur;
	uint64_t tramp = agent_ra_tramp_addr();
	struct agent_ra_frame *f;
	uint32_t xid = p->ret_id, top, lost = 0;

	if (!xid || xid > agent_probe_max_id ||
	    __atomic_load_n(&agent_probe_by_id[xid].disabled, __ATOMIC_RELAXED) ||
	    !__atomic_load_n(&agent.active, __ATOMIC_RELAXED))
		return;
	/* a thread on another's TLS (agent_thread.c): the shadow stack is
	 * that thread's, its return address is left as it is, and the exit
	 * it will not record is counted lost as its entry was */
	if (AGENT_UNLIKELY(agent_self.state == AGENT_T_SHARED) && agent_thread_foreign()) {
		__atomic_fetch_add(&agent.ctl->lost_clone, 1, __ATOMIC_RELAXED);
		return;
	}
	f = agent_ra_base;
	if (AGENT_UNLIKELY(!f)) {
		f = agent_ra_alloc();
		if (!f) {
			agent_ra_count(&agent_probe_area->ra_full, 1);
			return;
		}
	}
	top = agent_ra_top;
	if (cur == tramp) {
		/* A tail call from a swapped frame: same slot, same real
		 * return address; both exits are recorded at the return. */
		uint32_t i = top;

		while (i && !(f[i - 1].slot == sp && !(f[i - 1].flags & AGENT_RA_RESTORED)))
			i--;
		if (!i)
			return; /* not ours (cannot happen): leave it */
		real = f[i - 1].real;
	} else {
		/* Frames of this slot on top are gone: a new return address
		 * is in it (they were left by a longjmp or an unwind). */
		while (top && f[top - 1].slot == sp) {
			top--;
			lost++;
		}
		if (lost) {
			agent_ra_top = top;
			agent_ra_count(&agent_probe_area->ra_lost, lost);
		}
	}
	if (AGENT_UNLIKELY(top >= AGENT_RA_FRAMES)) {
		agent_ra_count(&agent_probe_area->ra_full, 1);
		return;
	}
	/* Reserve, then fill: a signal handler that runs between the two
	 * pushes above this frame, never over it. */
	agent_ra_top = top + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f[top].slot = sp;
	f[top].real = real;
	f[top].id = xid;
	f[top].flags = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	{
		struct agent_ra_ent *e = agent_ra_ent_of(sp);

		if (e) { /* for unwinders (the CFI above): real first */
			__atomic_store_n(&e->slot, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&e->real, real, __ATOMIC_RELAXED);
			__atomic_store_n(&e->slot, sp, __ATOMIC_RELEASE);
		}
	}
	if (cur != tramp)
		*slot = tramp;
}

/* An exit probe (a patched ret or tail jump) found the trampoline in its
 * return-address slot: it is the tail callee of the swapped frames of that
 * slot, and its exit, just recorded, ends them in the report. */
void agent_probe_ra_tailed(uint64_t sp)
{
	struct agent_ra_frame *f = agent_ra_base;
	uint32_t i = agent_ra_top;

	if (!f)
		return;
	while (i && !(f[i - 1].slot == sp && !(f[i - 1].flags & AGENT_RA_RESTORED)))
		i--;
	if (i)
		f[i - 1].flags |= AGENT_RA_SILENT;
}

/* No frame for a return that came through the trampoline: the real
 * address is unknown, the program cannot go on. Said plainly (a bug of
 * spool's, not of the program). */
__attribute__((noreturn, noinline)) static void agent_ra_lost_way(uint64_t slot)
{
	static const char msg[] = "spool: fatal: probe: a return through the return-address "
				  "trampoline has no saved address (a bug in spool: "
				  "please report it, with --exits patch as the workaround)\n";

	(void)slot;
	(void)!write(2, msg, sizeof(msg) - 1);
	for (;;)
		syscall(SYS_exit_group, 134);
}

uint64_t agent_probe_ra_ret(struct probe_regs *regs, uint64_t *slot)
{
	struct agent_ra_frame *f = agent_ra_base;
	uint64_t s = (uint64_t)(uintptr_t)slot, real;
	uint32_t top = agent_ra_top, i = top, lo, k;
	agent_probe_fn fn = agent_probe_table[PROBE_H_FUNC_EXIT];

	/* The most recent frame of this slot not handed back to an unwinder;
	 * failing that any (a thread stopped here while another one put the
	 * addresses back). */
	while (i && !(f[i - 1].slot == s && !(f[i - 1].flags & AGENT_RA_RESTORED)))
		i--;
	if (AGENT_UNLIKELY(!i)) {
		i = top;
		while (i && f[i - 1].slot != s)
			i--;
		if (!i)
			agent_ra_lost_way(s);
	}
	i--;
	real = f[i].real;
	*slot = real; /* the record reads the return address from the slot */
	{
		struct agent_ra_ent *e = agent_ra_ent_of(s);

		if (e && __atomic_load_n(&e->slot, __ATOMIC_RELAXED) == s)
			__atomic_store_n(&e->slot, 0, __ATOMIC_RELAXED);
	}
	lo = i;
	while (lo && f[lo - 1].slot == s && !(f[lo - 1].flags & AGENT_RA_RESTORED))
		lo--;
	/* The innermost only: the report ends the tail callers of a frame
	 * (same stack pointer) with it, as when their tail jump has no exit
	 * probe. Not even that one when an exit probe of a tail callee has
	 * recorded it already (agent_probe_ra_tailed). */
	{
		uint32_t xid = f[i].id;

		if (!(f[i].flags & AGENT_RA_SILENT) && xid <= agent_probe_max_id &&
		    !__atomic_load_n(&agent_probe_by_id[xid].disabled, __ATOMIC_RELAXED) && fn)
			fn(xid, regs, s);
	}
	/* Remove [lo, i]. Frames above it stay (a coroutine's, say): a handler
	 * that ran meanwhile left top as it found it. */
	top = agent_ra_top;
	if (i + 1 < top) {
		for (k = i + 1; k < top; k++)
			f[lo + (k - i - 1)] = f[k];
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		agent_ra_top = lo + (top - i - 1);
	} else {
		agent_ra_top = lo;
	}
	return real;
}

/* ---- what walks the stack: unwinders, longjmp ---- */

/* Is the page of addr mapped? msync answers ENOMEM for an unmapped one
 * (a coroutine's stack freed under a frame the shadow stack still has). */
static int agent_ra_mapped(uint64_t addr, uint64_t *last_ok)
{
	uint64_t pg = addr & ~(uint64_t)4095;
	long rc;

	if (pg == *last_ok)
		return 1;
	rc = syscall(SYS_msync, (void *)(uintptr_t)pg, 4096, MS_ASYNC);
	if (rc)
		return 0;
	*last_ok = pg;
	return 1;
}

void agent_probe_ra_unhook(uint64_t from)
{
	struct agent_ra_frame *f = agent_ra_base;
	uint64_t tramp = agent_ra_tramp_addr(), ok = 0;

	if (!f || !__atomic_load_n(&agent_ra_on, __ATOMIC_ACQUIRE))
		return;
	for (uint32_t i = agent_ra_top; i--;) {
		uint64_t *slot = (uint64_t *)(uintptr_t)f[i].slot;

		if ((f[i].flags & AGENT_RA_RESTORED) || f[i].slot < from ||
		    !agent_ra_mapped(f[i].slot, &ok))
			continue;
		if (*slot == tramp)
			*slot = f[i].real;
		f[i].flags |= AGENT_RA_RESTORED;
	}
}

/* A handler caught the exception; from is its frame's stack pointer. The
 * restored frames below it were unwound (dropped); the ones above it are
 * live again: swapped back. */
static void agent_ra_rehook(uint64_t from)
{
	struct agent_ra_frame *f = agent_ra_base;
	uint64_t tramp = agent_ra_tramp_addr(), ok = 0, last = 0;
	uint32_t top, lost = 0;

	if (!f || !__atomic_load_n(&agent_ra_on, __ATOMIC_ACQUIRE))
		return;
	top = agent_ra_top;
	while (top && (f[top - 1].flags & AGENT_RA_RESTORED) && f[top - 1].slot < from) {
		top--;
		lost++;
	}
	agent_ra_top = top;
	agent_ra_count(&agent_probe_area->ra_lost, lost);
	for (uint32_t i = top; i--;) {
		uint64_t *slot = (uint64_t *)(uintptr_t)f[i].slot, v;

		if (!(f[i].flags & AGENT_RA_RESTORED) || f[i].slot < from ||
		    !agent_ra_mapped(f[i].slot, &ok))
			continue;
		v = *slot;
		if (v == f[i].real || (v == tramp && f[i].slot == last)) {
			*slot = tramp;
			f[i].flags &= ~AGENT_RA_RESTORED;
			last = f[i].slot;
		}
	}
}

/* longjmp to env: drop the frames between the caller (from) and the
 * target's stack pointer. glibc keeps it in __jmpbuf[6] mangled: rotated
 * left by 17 after an xor with the pointer guard (%fs:0x30). */
static void agent_ra_longjmp(const struct __jmp_buf_tag *env, uint64_t from)
{
	struct agent_ra_frame *f = agent_ra_base;
	uint64_t v, guard, to;
	uint32_t top, lost = 0;

	if (!f || !__atomic_load_n(&agent_ra_on, __ATOMIC_ACQUIRE))
		return;
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	v = (uint64_t)env->__jmpbuf[6];
	to = ((v >> 17) | (v << 47)) ^ guard;
	if (to <= from)
		return;
	top = agent_ra_top;
	while (top && f[top - 1].slot >= from && f[top - 1].slot < to) {
		top--;
		lost++;
	}
	agent_ra_top = top;
	agent_ra_count(&agent_probe_area->ra_lost, lost);
}

/* The next definitions, found once (not in a signal handler: a longjmp
 * out of one is common). */
static void *agent_ra_next(void **cache, const char *name, const char *version)
{
	void *p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (p)
		return p;
	if (version)
		p = dlvsym(RTLD_NEXT, name, version);
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	if (!p)
		(void)dlerror(); /* the program's next dlerror() must not see ours */
	__atomic_store_n(cache, p, __ATOMIC_RELEASE);
	return p;
}

static void *agent_ra_real_longjmp, *agent_ra_real_siglongjmp, *agent_ra_real__longjmp,
    *agent_ra_real_longjmp_chk;

/* The unwinder (libgcc_s, GCC_3.0) and libstdc++'s catch. */
static void *agent_ra_real_raise, *agent_ra_real_resume, *agent_ra_real_rethrow,
    *agent_ra_real_forced, *agent_ra_real_begin_catch;

/* Resolved with the agent's other next definitions (agent_resolve), so
 * that a longjmp out of a signal handler never runs dlsym, and a C++
 * program's first throw and catch run none either (what a library loaded
 * later brings is looked up at its first use). */
void agent_probe_ra_resolve(void)
{
	agent_ra_next(&agent_ra_real_longjmp, "longjmp", NULL);
	agent_ra_next(&agent_ra_real_siglongjmp, "siglongjmp", NULL);
	agent_ra_next(&agent_ra_real__longjmp, "_longjmp", NULL);
	agent_ra_next(&agent_ra_real_longjmp_chk, "__longjmp_chk", NULL);
	agent_ra_next(&agent_ra_real_raise, "_Unwind_RaiseException", "GCC_3.0");
	agent_ra_next(&agent_ra_real_resume, "_Unwind_Resume", "GCC_3.0");
	agent_ra_next(&agent_ra_real_rethrow, "_Unwind_Resume_or_Rethrow", "GCC_3.3");
	agent_ra_next(&agent_ra_real_forced, "_Unwind_ForcedUnwind", "GCC_3.0");
	agent_ra_next(&agent_ra_real_begin_catch, "__cxa_begin_catch", "CXXABI_1.3");
}

typedef void (*agent_ra_jmp_fn)(struct __jmp_buf_tag *, int);

#define AGENT_RA_CFA() ((uint64_t)(uintptr_t)__builtin_dwarf_cfa())

AGENT_EXPORT __attribute__((noreturn)) void longjmp(struct __jmp_buf_tag env[1], int val)
{
	agent_ra_longjmp(env, AGENT_RA_CFA());
	((agent_ra_jmp_fn)agent_ra_next(&agent_ra_real_longjmp, "longjmp", NULL))(env, val);
	__builtin_unreachable();
}

AGENT_EXPORT __attribute__((noreturn)) void siglongjmp(struct __jmp_buf_tag env[1], int val)
{
	agent_ra_longjmp(env, AGENT_RA_CFA());
	((agent_ra_jmp_fn)agent_ra_next(&agent_ra_real_siglongjmp, "siglongjmp", NULL))(env, val);
	__builtin_unreachable();
}

AGENT_EXPORT __attribute__((noreturn)) void _longjmp(struct __jmp_buf_tag env[1], int val)
{
	agent_ra_longjmp(env, AGENT_RA_CFA());
	((agent_ra_jmp_fn)agent_ra_next(&agent_ra_real__longjmp, "_longjmp", NULL))(env, val);
	__builtin_unreachable();
}

AGENT_EXPORT __attribute__((noreturn)) void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
	agent_ra_longjmp(env, AGENT_RA_CFA());
	((agent_ra_jmp_fn)agent_ra_next(&agent_ra_real_longjmp_chk, "__longjmp_chk", NULL))(env,
											    val);
	__builtin_unreachable();
}

/* The unwinder: put the addresses back first. */

AGENT_EXPORT int _Unwind_RaiseException(void *exc)
{
	int (*fn)(void *) = (int (*)(void *))agent_ra_next(&agent_ra_real_raise,
							   "_Unwind_RaiseException", "GCC_3.0");

	agent_probe_ra_unhook(AGENT_RA_CFA());
	return fn ? fn(exc) : 5; /* _URC_END_OF_STACK */
}

AGENT_EXPORT void _Unwind_Resume(void *exc)
{
	void (*fn)(void *) =
	    (void (*)(void *))agent_ra_next(&agent_ra_real_resume, "_Unwind_Resume", "GCC_3.0");

	agent_probe_ra_unhook(AGENT_RA_CFA());
	if (fn)
		fn(exc);
	for (;;)
		syscall(SYS_exit_group, 134); /* no unwinder: cannot happen */
}

AGENT_EXPORT int _Unwind_Resume_or_Rethrow(void *exc)
{
	int (*fn)(void *) = (int (*)(void *))agent_ra_next(&agent_ra_real_rethrow,
							   "_Unwind_Resume_or_Rethrow", "GCC_3.3");

	agent_probe_ra_unhook(AGENT_RA_CFA());
	return fn ? fn(exc) : 5;
}

AGENT_EXPORT int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg)
{
	int (*fn)(void *, void *, void *) = (int (*)(void *, void *, void *))agent_ra_next(
	    &agent_ra_real_forced, "_Unwind_ForcedUnwind", "GCC_3.0");

	agent_probe_ra_unhook(AGENT_RA_CFA());
	return fn ? fn(exc, stop, arg) : 5;
}

/* libstdc++ (CXXABI_1.3): called first thing in a catch handler. */
AGENT_EXPORT void *__cxa_begin_catch(void *exc)
{
	void *(*fn)(void *) = (void *(*)(void *))agent_ra_next(&agent_ra_real_begin_catch,
							       "__cxa_begin_catch", "CXXABI_1.3");

	agent_ra_rehook(AGENT_RA_CFA());
	return fn ? fn(exc) : exc;
}

void agent_probe_ra_thread_end(void)
{
	struct agent_ra_frame *f = agent_ra_base;

	if (!f || agent_ra_top)
		return;
	agent_ra_base = NULL;
	munmap(f, AGENT_RA_FRAMES * sizeof(*f));
}
