// SPDX-License-Identifier: MIT
/*
 * agent_probe_fast.c - the fast halves of the event handlers (function
 * entry, exit, hit): what a jump probe's trampoline calls first
 * (x86_call_fast in src/arch/x86_64/x86_insn.c), written in assembly so
 * that a hit saves only the registers it uses.
 *
 * Why: the standard handlers are C. The trampoline saved the nine
 * caller-saved registers around them, and the handler's prologue pushed
 * six callee-saved ones more (its fast path has that many values live):
 * fifteen pushes and pops a hit, around a path that writes one 8-byte
 * event. The same path compiled no_caller_saved_registers pushed fourteen.
 * Here it uses rax, rdx (rdtsc), rdi and rsi (its arguments), which the
 * trampoline saves, and rcx, r8-r11, which it saves itself: nine pushes.
 *
 * What it does is agent_probe_emit's fast path (agent_probe_hot.c), check
 * for check and store for store: the thread recording (agent.active, state
 * AGENT_T_ON, not busy), packets in the ring with no wake owed, the site
 * (probe, caller) defined in the open packet, room, a time and a stack
 * pointer that fit the short event; then busy, the timestamp, last_seq, the
 * event word (ring_pkt_probe_in), the packet's and the ring's counters, the
 * prefetch of ring_pkt_published, seq, busy cleared. Anything else changes
 * nothing but last_seq (the general path stores the same number there
 * again) and takes agent_probe_fast_slow: the rest of the caller-saved
 * registers saved as struct probe_regs, the stack realigned, the probe's
 * standard handler called in its SLOW form (agent_probe_fast_dispatch),
 * which does all of it in C without a second timestamp. An exit whose
 * return address is the return-address trampoline (it ends that frame too:
 * agent_probe_exit_tail) always takes the standard handler. So the
 * trampoline has no slow path of its own: 35 bytes a handler call
 * (79 with the caller-saved registers pushed and popped there).
 *
 * Contract with the trampoline: edi the probe id, rsi the stack pointer at
 * the probe; rax clobbered, every other register kept, the flags clobbered
 * (the trampoline saved them where they are live). The fast path calls
 * nothing and touches no vector register, the stack only by its pushes
 * (below the red zone the trampoline stepped over), so any stack alignment
 * does; the slow one realigns before it calls C, whose general-regs-only
 * handlers save the extended state themselves before anything that may
 * use it (agent_probe_slow). No system call on the fast path, errno
 * untouched. Signal-safe as agent_probe_emit: busy is
 * set before the packet is read, so a signal handler's hit in between sees
 * busy and takes the general path, and one that ran before busy left the
 * packet consistent (the fields are read after busy is set).
 *
 * The structure offsets and constants come from the C definitions through
 * "i" operands of the one asm statement of a function that is never
 * called; the static assertions pin what the code assumes of their layout.
 */
#include <stddef.h>

#include "agent.h"
#include "agent_probe.h"

_Static_assert(sizeof(struct ring_psite) == 16, "a probe site is 16 bytes (shl $4)");
_Static_assert(offsetof(struct ring_sites, probe) == 0, "probe sites first");
_Static_assert(RING_PKT_PSITES - 2 < 0x80000000u, "an imm32 mask");
_Static_assert(RING_PKT_TS_MASK < 0x80000000ull, "an imm32 mask");
_Static_assert(sizeof(((struct agent_thread *)0)->state) == 1 &&
		       sizeof(((struct agent_thread *)0)->busy) == 1,
	       "byte compares");
_Static_assert(sizeof(agent.active) == 4, "cmpl");
_Static_assert(sizeof(((struct ring_pkt *)0)->gen) == 2 && sizeof(((struct ring_psite *)0)->gen) == 2,
	       "16-bit generations");

#define AGENT_FAST_OFF(f) offsetof(struct agent_thread, f)

__attribute__((used, noinline)) static void agent_probe_fast_asm(void)
{
	__asm__ volatile(
		".set AGENT_F_SLOT, %c0\n"
		".set AGENT_F_POS, %c1\n"
		".set AGENT_F_BASE, %c2\n"
		".set AGENT_F_START, %c3\n"
		".set AGENT_F_EVENTS, %c4\n"
		".set AGENT_F_NEXT_SEQ, %c5\n"
		".set AGENT_F_PREV_TSC, %c6\n"
		".set AGENT_F_PSP, %c7\n"
		".set AGENT_F_GEN, %c8\n"
		".set AGENT_F_SITES, %c9\n"
		".set AGENT_F_WAKE, %c10\n"
		".set AGENT_F_RING, %c11\n"
		".set AGENT_F_PHEAD, %c12\n"
		".set AGENT_F_SEQ, %c13\n"
		".set AGENT_F_STATE, %c14\n"
		:
		: "i"(AGENT_FAST_OFF(prod.pkt.slot)),
		  "i"(AGENT_FAST_OFF(prod.pkt.pos)),
		  "i"(AGENT_FAST_OFF(prod.pkt.base)),
		  "i"(AGENT_FAST_OFF(prod.pkt.start)),
		  "i"(AGENT_FAST_OFF(prod.pkt.events)),
		  "i"(AGENT_FAST_OFF(prod.pkt.next_seq)),
		  "i"(AGENT_FAST_OFF(prod.pkt.prev_tsc)),
		  "i"(AGENT_FAST_OFF(prod.pkt.sp)),
		  "i"(AGENT_FAST_OFF(prod.pkt.gen)),
		  "i"(AGENT_FAST_OFF(prod.pkt.sites)),
		  "i"(AGENT_FAST_OFF(prod.pkt_wake)),
		  "i"(AGENT_FAST_OFF(prod.ring)),
		  "i"(AGENT_FAST_OFF(prod.head)),
		  "i"(AGENT_FAST_OFF(seq)),
		  "i"(AGENT_FAST_OFF(state)));
	__asm__ volatile(
		".set AGENT_F_BUSY, %c0\n"
		".set AGENT_F_ON, %c1\n"
		".set AGENT_F_ACTIVE, %c2\n"
		".set AGENT_F_LAST_SEQ, %c3\n"
		".set AGENT_F_DONE_SEQ, %c4\n"
		".set AGENT_F_RHEAD, %c5\n"
		".set AGENT_F_S_GEN, %c6\n"
		".set AGENT_F_S_CALLER, %c7\n"
		".set AGENT_F_S_PROBE, %c8\n"
		".set AGENT_F_S_IDX, %c9\n"
		".set AGENT_F_ROOM, %c10\n"
		".set AGENT_F_TSMASK, %c11\n"
		".set AGENT_F_PSMASK, %c12\n"
		".set AGENT_F_AHEAD, %c13\n"
		".set AGENT_F_C_ENTRY, %c14\n"
		:
		: "i"(AGENT_FAST_OFF(busy)),
		  "i"(AGENT_T_ON),
		  "i"(offsetof(struct agent_state, active)),
		  "i"(offsetof(struct shm_ring, last_seq)),
		  "i"(offsetof(struct shm_ring, done_seq)),
		  "i"(offsetof(struct shm_ring, head)),
		  "i"(offsetof(struct ring_psite, gen)),
		  "i"(offsetof(struct ring_psite, caller)),
		  "i"(offsetof(struct ring_psite, probe)),
		  "i"(offsetof(struct ring_psite, idx)),
		  "i"(36 + RING_PKT_SLACK),
		  "i"(RING_PKT_TS_MASK),
		  "i"(RING_PKT_PSITES - 2),
		  "i"(RING_PROD_AHEAD),
		  "i"(RING_PKT_PROBE_ENTRY + PROBE_OP_ENTRY - PROBE_OP_ENTRY));
	__asm__ volatile(
		".set AGENT_F_C_EXIT, %c0\n"
		".set AGENT_F_C_HIT, %c1\n"
		:
		: "i"(RING_PKT_PROBE_ENTRY + PROBE_OP_EXIT - PROBE_OP_ENTRY),
		  "i"(RING_PKT_PROBE_ENTRY + PROBE_OP_HIT - PROBE_OP_ENTRY));
	__asm__ volatile(
		".pushsection .text.agent_probe_fast,\"ax\",@progbits\n"
		".macro AGENT_PROBE_FAST name, cls, exit\n"
		"	.p2align 4\n"
		"	.globl \\name\n"
		"	.hidden \\name\n"
		"	.type \\name,@function\n"
		"\\name:\n"
		"	push %%rcx\n"
		"	push %%rdx\n"
		"	push %%r8\n"
		"	push %%r9\n"
		"	push %%r10\n"
		"	push %%r11\n"
		"	mov agent_self@gottpoff(%%rip), %%rcx\n"
		"	.if \\exit\n"
		"	lea agent_probe_ra_tramp(%%rip), %%r8\n"
		"	cmp %%r8, (%%rsi)\n"
		"	je .Lmiss\\@\n"
		"	.endif\n"
		/* the thread recording into packets, the id known */
		"	cmpl $0, %%fs:AGENT_F_SLOT(%%rcx)\n"
		"	je .Lmiss\\@\n"
		"	cmpl $0, agent+AGENT_F_ACTIVE(%%rip)\n"
		"	je .Lmiss\\@\n"
		"	cmpb $AGENT_F_ON, %%fs:AGENT_F_STATE(%%rcx)\n"
		"	jne .Lmiss\\@\n"
		"	cmpb $0, %%fs:AGENT_F_BUSY(%%rcx)\n"
		"	jne .Lmiss\\@\n"
		"	test %%edi, %%edi\n"
		"	jz .Lmiss\\@\n"
		"	cmp agent_probe_max_id(%%rip), %%edi\n"
		"	ja .Lmiss\\@\n"
		"	movb $1, %%fs:AGENT_F_BUSY(%%rcx)\n"
		/* rax = tsc */
		"	rdtsc\n"
		"	shl $32, %%rdx\n"
		"	or %%rdx, %%rax\n"
		"	cmpl $0, %%fs:AGENT_F_WAKE(%%rcx)\n"
		"	jne .Lmissb\\@\n"
		/* edx = seq, stored in last_seq before the event is published */
		"	mov %%fs:AGENT_F_SEQ(%%rcx), %%edx\n"
		"	add $1, %%edx\n"
		"	mov %%fs:AGENT_F_RING(%%rcx), %%r8\n"
		"	mov %%edx, AGENT_F_LAST_SEQ(%%r8)\n"
		/* ring_pkt_probe_in's checks */
		"	cmpq $0, %%fs:AGENT_F_BASE(%%rcx)\n"
		"	je .Lmissb\\@\n"
		"	cmpl $0, %%fs:AGENT_F_EVENTS(%%rcx)\n"
		"	je .Lmissb\\@\n"
		"	cmp %%fs:AGENT_F_NEXT_SEQ(%%rcx), %%edx\n"
		"	jne .Lmissb\\@\n"
		"	cmpq $0, %%fs:AGENT_F_SITES(%%rcx)\n"
		"	je .Lmissb\\@\n"
		"	mov %%fs:AGENT_F_POS(%%rcx), %%r9d\n"
		"	add $AGENT_F_ROOM, %%r9d\n"
		"	cmp %%fs:AGENT_F_SLOT(%%rcx), %%r9d\n"
		"	ja .Lmissb\\@\n"
		"	mov %%rax, %%r9\n"
		"	sub %%fs:AGENT_F_PREV_TSC(%%rcx), %%r9\n"
		"	cmp $AGENT_F_TSMASK, %%r9\n"
		"	ja .Lmissb\\@\n"
		/* r9 = the stack pointer delta, biased */
		"	mov %%rsi, %%r9\n"
		"	sub %%fs:AGENT_F_PSP(%%rcx), %%r9\n"
		"	add $0x8000, %%r9\n"
		"	cmp $0xffff, %%r9\n"
		"	ja .Lmissb\\@\n"
		/* the site: ring_pkt_psite_at(id, caller), two ways */
		"	mov (%%rsi), %%r10\n"
		"	mov %%rdi, %%r8\n"
		"	shl $40, %%r8\n"
		"	xor %%r10, %%r8\n"
		"	movabs $0x9e3779b97f4a7c15, %%r11\n"
		"	imul %%r11, %%r8\n"
		"	shr $51, %%r8\n"
		"	and $AGENT_F_PSMASK, %%r8d\n"
		"	shl $4, %%r8\n"
		"	add %%fs:AGENT_F_SITES(%%rcx), %%r8\n"
		"	movzwl %%fs:AGENT_F_GEN(%%rcx), %%r11d\n"
		"	cmp %%r11w, AGENT_F_S_GEN(%%r8)\n"
		"	jne 1f\n"
		"	cmp %%r10, AGENT_F_S_CALLER(%%r8)\n"
		"	jne 1f\n"
		"	cmp %%edi, AGENT_F_S_PROBE(%%r8)\n"
		"	je 2f\n"
		"1:	add $16, %%r8\n"
		"	cmp %%r11w, AGENT_F_S_GEN(%%r8)\n"
		"	jne .Lmissb\\@\n"
		"	cmp %%r10, AGENT_F_S_CALLER(%%r8)\n"
		"	jne .Lmissb\\@\n"
		"	cmp %%edi, AGENT_F_S_PROBE(%%r8)\n"
		"	jne .Lmissb\\@\n"
		/* r10 = the event: time, class | site << 32 | delta << 48 */
		"2:	movzwl AGENT_F_S_IDX(%%r8), %%r10d\n"
		"	shl $32, %%r10\n"
		"	sub $0x8000, %%r9\n"
		"	shl $48, %%r9\n"
		"	or %%r9, %%r10\n"
		"	mov %%rax, %%r9\n"
		"	and $AGENT_F_TSMASK, %%r9\n"
		"	shl $5, %%r9\n"
		"	or $\\cls, %%r9\n"
		"	or %%r9, %%r10\n"
		/* written, then the counters (r9 = from, r10 = to) */
		"	mov %%fs:AGENT_F_BASE(%%rcx), %%r8\n"
		"	mov %%fs:AGENT_F_POS(%%rcx), %%r9d\n"
		"	mov %%r10, (%%r8,%%r9)\n"
		"	mov %%rsi, %%fs:AGENT_F_PSP(%%rcx)\n"
		"	mov %%rax, %%fs:AGENT_F_PREV_TSC(%%rcx)\n"
		"	lea 8(%%r9), %%r10d\n"
		"	mov %%r10d, %%fs:AGENT_F_POS(%%rcx)\n"
		"	addl $1, %%fs:AGENT_F_EVENTS(%%rcx)\n"
		"	lea 1(%%rdx), %%r11d\n"
		"	mov %%r11d, %%fs:AGENT_F_NEXT_SEQ(%%rcx)\n"
		"	mov %%fs:AGENT_F_RING(%%rcx), %%r11\n"
		"	mov %%edx, AGENT_F_DONE_SEQ(%%r11)\n"
		"	mov %%fs:AGENT_F_START(%%rcx), %%rax\n"
		"	add %%r10, %%rax\n"
		"	mov %%rax, %%fs:AGENT_F_PHEAD(%%rcx)\n"
		"	mov %%rax, AGENT_F_RHEAD(%%r11)\n"
		/* ring_pkt_published: a new line reached, ask for one ahead */
		"	xor %%r10d, %%r9d\n"
		"	test $-64, %%r9d\n"
		"	jz 3f\n"
		"	add $AGENT_F_AHEAD, %%r10d\n"
		"	cmp %%fs:AGENT_F_SLOT(%%rcx), %%r10d\n"
		"	jae 3f\n"
		"	prefetchw (%%r8,%%r10)\n"
		"3:	mov %%edx, %%fs:AGENT_F_SEQ(%%rcx)\n"
		"	movb $0, %%fs:AGENT_F_BUSY(%%rcx)\n"
		"	mov $1, %%eax\n"
		"	pop %%r11\n"
		"	pop %%r10\n"
		"	pop %%r9\n"
		"	pop %%r8\n"
		"	pop %%rdx\n"
		"	pop %%rcx\n"
		"	ret\n"
		".Lmissb\\@:\n"
		"	movb $0, %%fs:AGENT_F_BUSY(%%rcx)\n"
		".Lmiss\\@:\n"
		"	jmp agent_probe_fast_slow\n"
		"	.size \\name, .-\\name\n"
		".endm\n"
		"AGENT_PROBE_FAST agent_probe_fast_entry, AGENT_F_C_ENTRY, 0\n"
		"AGENT_PROBE_FAST agent_probe_fast_exit, AGENT_F_C_EXIT, 1\n"
		"AGENT_PROBE_FAST agent_probe_fast_hit, AGENT_F_C_HIT, 0\n"
		".purgem AGENT_PROBE_FAST\n"
		/* FAST_MISS: straight to the standard handler */
		"	.p2align 4\n"
		"	.globl agent_probe_fast_miss\n"
		"	.hidden agent_probe_fast_miss\n"
		"	.type agent_probe_fast_miss,@function\n"
		"agent_probe_fast_miss:\n"
		"	push %%rcx\n"
		"	push %%rdx\n"
		"	push %%r8\n"
		"	push %%r9\n"
		"	push %%r10\n"
		"	push %%r11\n"
		"	jmp agent_probe_fast_slow\n"
		"	.size agent_probe_fast_miss, .-agent_probe_fast_miss\n"
		/*
		 * The standard handler, for an event the fast path could not
		 * write. Entered by a jmp with rcx, rdx, r8-r11 pushed (their
		 * values from the probe; r11 lowest, then the return address
		 * into the trampoline and its rsi, rdi, rax), edi the id, rsi
		 * the stack pointer at the probe. Builds struct probe_regs from
		 * the saved values (r11 lowest: the trampoline's old layout),
		 * calls agent_probe_fast_dispatch on a 16-byte aligned stack,
		 * and returns 1 with the six registers popped back.
		 */
		"	.p2align 4\n"
		"	.type agent_probe_fast_slow,@function\n"
		"agent_probe_fast_slow:\n"
		"	mov %%rsi, %%rax\n"
		"	mov 40(%%rsp), %%rcx\n"
		"	mov 32(%%rsp), %%rdx\n"
		"	mov 24(%%rsp), %%r8\n"
		"	mov 16(%%rsp), %%r9\n"
		"	mov 8(%%rsp), %%r10\n"
		"	mov (%%rsp), %%r11\n"
		"	pushq 72(%%rsp)\n" /* rax */
		"	push %%rcx\n"
		"	push %%rdx\n"
		"	pushq 80(%%rsp)\n" /* rsi */
		"	pushq 96(%%rsp)\n" /* rdi */
		"	push %%r8\n"
		"	push %%r9\n"
		"	push %%r10\n"
		"	push %%r11\n"
		"	mov %%rsp, %%rsi\n"
		"	mov %%rax, %%rdx\n"
		"	mov %%rsp, %%r11\n"
		"	and $-16, %%rsp\n"
		"	push %%r11\n"
		"	push %%r11\n"
		"	call agent_probe_fast_dispatch\n"
		"	mov (%%rsp), %%rsp\n"
		"	add $72, %%rsp\n"
		"	mov $1, %%eax\n"
		"	pop %%r11\n"
		"	pop %%r10\n"
		"	pop %%r9\n"
		"	pop %%r8\n"
		"	pop %%rdx\n"
		"	pop %%rcx\n"
		"	ret\n"
		"	.size agent_probe_fast_slow, .-agent_probe_fast_slow\n"
		".popsection\n"
		:
		: );
}
