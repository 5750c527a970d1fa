// SPDX-License-Identifier: MIT
/*
 * a64_agent_ra.c - function exits through the return address on aarch64
 * (spool probe --exits retaddr): the entry probe of a function
 * (PROBE_H_FUNC_ENTRY_RA: its first word, or the one after its landing
 * pad, where LR holds the return address and sp is the caller's) records
 * the entry, keeps LR on the thread's shadow stack and puts the address of
 * a64_ra_tramp in its place; the function's own RET (or RETAA, or a tail
 * call's function's) then comes here, which records the exit (probe
 * ret_id, PROBE_M_RETADDR) and returns to the real address. No RET of the
 * function is patched.
 *
 * Pointer authentication: after PACIASP (PACIBSP) LR is signed with key A
 * (B) and sp as the modifier, and the function authenticates what it
 * finds there before returning; the trampoline's address is signed the
 * same way (PACIA1716/PACIB1716: hints, a NOP on a core without PAC).
 * Which key: the landing pad the plan saw (PROBE_F_A64_PAC_*), never
 * guessed from LR's top bits (a signature can be all zeros: qemu-user's
 * are 7 bits wide).
 *
 * The shadow stack, per thread (mapped at its first hooked call, released
 * at its end when empty): frames of (real return address, sp at the
 * entry, exit id). A tail call into another hooked function finds LR
 * already the trampoline: it pushes a frame with no address at the same
 * sp, and the one return records the callee's exit, which ends the tail
 * caller's activation too in the reports (as on x86-64). A return
 * comes back at the sp of its entry (AAPCS64: the callee restores sp):
 * the topmost frame with that sp is its own; frames above it with a lower
 * sp were left by a longjmp (dropped, counted in ra_lost), others (another
 * stack's: a signal's alternate stack) are kept. Signal-safe: a handler
 * that runs hooked functions pushes and pops above the frames of the code
 * it interrupted; each push is written before the count that publishes it.
 *
 * Limits (doc/arm64.md): an unwinder cannot step over the trampoline (no
 * CFI describes it): C++ exceptions would end the program, so spool
 * patches the exits of a program that can throw (a64_plan.c); glibc's
 * forced unwinding (pthread_exit, cancellation) stops there after the C
 * cleanup handlers, as on x86-64 in attach mode; backtrace() stops there.
 * A return on a stack whose frame was dropped (swapcontext between stacks
 * with a lower one's frames dropped by a longjmp) has nowhere to go.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../agent/agent.h"
#include "../../agent/agent_probe.h"
#include "a64_agent_probe.h"

#define A64_VA_MASK ((1ull << 48) - 1)
#define A64_RA_DEPTH 16384u /* frames per thread (the x86-64 shadow stack's depth) */

struct a64_ra_frame {
	uint64_t ret; /* the real return address, stripped; 0: a tail call's */
	uint64_t sp;  /* sp at the entry, and after the return */
	uint32_t id;  /* the exit probe */
	uint32_t pad;
};

static __thread struct a64_ra_frame *a64_ra_stack;
static __thread uint32_t a64_ra_n;

void a64_ra_tramp(void);
uint64_t a64_ra_ret(struct a64_probe_regs *regs, uint64_t sp);

/*
 * The return trampoline: saves x0-x30 in a struct a64_probe_regs and the
 * vector state with a64_vsave (q0-q31 into it: the return values, and what
 * the exit record and a custom handler read; on a core with SVE also Z, P
 * and FFR below it, moving sp: an SVE function returns vectors in z0-z7
 * and predicates in p0-p3, and keeps z8-z23 and p4-p15 for its caller,
 * which a64_ra_ret's code would clear), a64_ra_ret(regs, sp after the
 * return) records the exit and gives the real return address (kept in
 * the frame's x30 slot: a64_vrest's call changes x30), a64_vrest puts
 * the vector state and sp back, then the general registers come back and
 * RET goes there (RET, not BR: a return site is no BTI landing pad). x19
 * holds the frame across the calls (callee-saved; restored from it).
 */
__asm__(".text\n"
	".p2align 4\n"
	".globl a64_ra_tramp\n"
	".hidden a64_ra_tramp\n"
	".type a64_ra_tramp, %function\n"
	"a64_ra_tramp:\n"
	"\tsub sp, sp, #768\n"
	"\tstp x0, x1, [sp, #0]\n"
	"\tstp x2, x3, [sp, #16]\n"
	"\tstp x4, x5, [sp, #32]\n"
	"\tstp x6, x7, [sp, #48]\n"
	"\tstp x8, x9, [sp, #64]\n"
	"\tstp x10, x11, [sp, #80]\n"
	"\tstp x12, x13, [sp, #96]\n"
	"\tstp x14, x15, [sp, #112]\n"
	"\tstp x16, x17, [sp, #128]\n"
	"\tstp x18, x19, [sp, #144]\n"
	"\tstp x20, x21, [sp, #160]\n"
	"\tstp x22, x23, [sp, #176]\n"
	"\tstp x24, x25, [sp, #192]\n"
	"\tstp x26, x27, [sp, #208]\n"
	"\tstp x28, x29, [sp, #224]\n"
	"\tstr x30, [sp, #240]\n"
	"\tmov x19, sp\n"
	"\tbl a64_vsave\n"
	"\tmov x0, x19\n"
	"\tadd x1, x19, #768\n"
	"\tbl a64_ra_ret\n"
	"\tstr x0, [x19, #240]\n"
	"\tbl a64_vrest\n"
	"\tldr x30, [sp, #240]\n"
	"\tldp x0, x1, [sp, #0]\n"
	"\tldp x2, x3, [sp, #16]\n"
	"\tldp x4, x5, [sp, #32]\n"
	"\tldp x6, x7, [sp, #48]\n"
	"\tldp x8, x9, [sp, #64]\n"
	"\tldp x10, x11, [sp, #80]\n"
	"\tldp x12, x13, [sp, #96]\n"
	"\tldp x14, x15, [sp, #112]\n"
	"\tldp x16, x17, [sp, #128]\n"
	"\tldp x18, x19, [sp, #144]\n"
	"\tadd sp, sp, #768\n"
	"\tret\n"
	".size a64_ra_tramp, .-a64_ra_tramp\n");

/* PACIA1716 / PACIB1716: x17 signed with x16 as the modifier (hints: a
 * NOP on a core without pointer authentication). */
static uint64_t a64_pac(uint64_t ptr, uint64_t mod, int key_b)
{
	register uint64_t x17 __asm__("x17") = ptr;
	register uint64_t x16 __asm__("x16") = mod;

	if (key_b)
		__asm__("hint #10" : "+r"(x17) : "r"(x16));
	else
		__asm__("hint #8" : "+r"(x17) : "r"(x16));
	return x17;
}

static void a64_ra_count(int full)
{
	struct probe_area_hdr *h = a64_probe_hdr;

	if (h)
		__atomic_fetch_add(full ? &h->ra_full : &h->ra_lost, 1, __ATOMIC_RELAXED);
}

/* The entry of a function whose exits go through its return address. */
void a64_probe_entry_ra(uint32_t id, struct a64_probe_regs *regs, uint64_t sp)
{
	uint64_t lr = regs->x[30], real = lr & A64_VA_MASK;
	uint64_t tramp = (uint64_t)(uintptr_t)a64_ra_tramp;
	uint32_t ret, n, key;
	struct a64_ra_frame *f;

	if (agent_probe_user.pre || agent_probe_user.post)
		a64_probe_user_entry(id, regs, sp);
	else
		a64_probe_entry(id, regs, sp);
	if (id > a64_probe_max_id || !a64_probe_ret || agent_self.busy)
		return;
	ret = a64_probe_ret[id];
	key = ret >> 30;
	ret &= (1u << 30) - 1;
	if (!ret || ret > a64_probe_max_id)
		return;
	if (!a64_ra_stack) {
		/* raw: this may run in a signal handler */
		long s = syscall(SYS_mmap, 0, A64_RA_DEPTH * sizeof(*f), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (s == -1) {
			a64_ra_count(1);
			return;
		}
		a64_ra_stack = (struct a64_ra_frame *)s;
	}
	n = a64_ra_n;
	if (n >= A64_RA_DEPTH) {
		a64_ra_count(1);
		return;
	}
	/* reserved before it is written: a signal handler that runs hooked
	 * functions meanwhile pushes and pops above it */
	a64_ra_n = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f = &a64_ra_stack[n];
	f->sp = sp;
	f->id = ret;
	if (real == tramp) {
		f->ret = 0; /* a tail call from a hooked function: its frame is below */
	} else {
		f->ret = real;
		/* after PACIASP / PACIBSP (the plan says which), the function
		 * authenticates LR with sp before returning: the trampoline's
		 * address is signed the same way (a NOP without PAC) */
		regs->x[30] = key ? a64_pac(tramp, sp, key == 2) : tramp;
	}
}

/* No frame for a return that came through the trampoline: the real
 * address is unknown, the program cannot go on. Said plainly (a bug of
 * spool's, not of the program), as on x86-64. */
__attribute__((noreturn, noinline)) static void a64_ra_lost_way(void)
{
	static const char msg[] = "spool: fatal: probe: a return through the return-address "
				  "trampoline has no saved address (a bug in spool: "
				  "please report it, with --exits patch as the workaround)\n";

	(void)!write(2, msg, sizeof(msg) - 1);
	for (;;)
		syscall(SYS_exit_group, 134);
}

/*
 * From a64_ra_tramp: the exit of the topmost frame at sp, the real return
 * address back (that of the frame below it at the same sp when it was a
 * tail call: the report closes the tail callers with the callee's exit,
 * src/analyze/callstack.c). Frames above it with a lower sp are a
 * longjmp's leftovers: dropped; others (another stack's) stay.
 */
uint64_t a64_ra_ret(struct a64_probe_regs *regs, uint64_t sp)
{
	struct a64_ra_frame *s = a64_ra_stack;
	uint32_t n = a64_ra_n, top, k, w, id;
	uint64_t real = 0;
	int e = errno;

	for (top = n; top > 0 && s[top - 1].sp != sp; top--)
		;
	if (!top)
		a64_ra_lost_way();
	id = s[top - 1].id;
	for (k = top; k > 0 && s[k - 1].sp == sp; k--) {
		if (s[k - 1].ret) {
			real = s[k - 1].ret;
			k--;
			break;
		}
	}
	if (!real)
		a64_ra_lost_way();
	/* [k, top) are this return's: removed, with the longjmp's above */
	w = k;
	for (uint32_t i = top; i < n; i++) {
		if (s[i].sp < sp) {
			a64_ra_count(0);
			continue;
		}
		s[w++] = s[i];
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	a64_ra_n = w;
	regs->x[30] = real;
	if (agent_probe_user.pre || agent_probe_user.post)
		a64_probe_user_exit(id, regs, sp);
	else
		a64_probe_exit(id, regs, sp);
	errno = e;
	return real;
}

/* The thread ends: its shadow stack goes when nothing is on it. */
void agent_probe_ra_thread_end(void)
{
	struct a64_ra_frame *s = a64_ra_stack;

	if (!s || a64_ra_n)
		return;
	a64_ra_stack = NULL;
	syscall(SYS_munmap, s, A64_RA_DEPTH * sizeof(*s));
}

/* Nothing of x86-64's longjmp and unwinder hooks (agent_probe_ra.c): a
 * longjmp's frames are dropped at the next return (above). */
void agent_probe_ra_resolve(void) {}

void agent_probe_ra_unhook(uint64_t from) {}
