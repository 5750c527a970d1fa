// SPDX-License-Identifier: MIT
/*
 * a64_agent_probe.h - shared by the aarch64 probe runtime
 * (a64_agent_probe.c: placing) and its handlers (a64_agent_probe_hot.c).
 */
#ifndef SPOOL_ARCH_AARCH64_A64_AGENT_PROBE_H
#define SPOOL_ARCH_AARCH64_A64_AGENT_PROBE_H

#include <signal.h>
#include <stdint.h>

#include "../../../include/spool/probe.h"
#include "../../probe/probe_abi.h"
#include "a64_insn.h"

/* The probed instruction's run-time address, and its module's load bias,
 * by probe id (0..max_id). */
extern uint64_t *a64_probe_addr;
extern uint64_t *a64_probe_base;
extern uint32_t a64_probe_max_id;

/* --exits retaddr (a64_agent_ra.c): by entry id, the id of its
 * PROBE_M_RETADDR exit (0: none) in the low 30 bits, and in the top two
 * the key LR is signed with there (1 A, 2 B, 0 not signed); the entry
 * handler that swaps LR; the probes area (its ra_full and ra_lost
 * counts). */
extern uint32_t *a64_probe_ret;
extern struct probe_area_hdr *a64_probe_hdr;
void a64_probe_entry_ra(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);

/* The vector state's save and restore around a trampoline's handlers
 * (a64_agent_sve.c: q0-q31, and SVE's Z, P and FFR on a core with SVE);
 * a64_sve_init reads the core's HWCAP_SVE, before any trampoline runs. */
void a64_vsave(void);
void a64_vrest(void);
void a64_sve_init(void);

/* The standard handlers the trampolines call (a64_code_probe): probe id,
 * the registers saved at the probe, the stack pointer there. */
void a64_probe_entry(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);
void a64_probe_exit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);

/* Block and branch counters (probe_abi.h counts_off): counts[2 * id] a
 * block's hits, counts[2 * id + 0/1] a branch taken / not taken. */
extern uint64_t *a64_probe_counts;
extern uint32_t a64_probe_ncounts;
void a64_probe_block(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);
/* (w3 = the branch's instruction word: struct a64_call's arg) */
void a64_probe_branch(uint32_t id, struct a64_probe_regs *regs, uint64_t sp, uint32_t w);

/* Variable probes (PROBE_H_VAR): the recipes, sorted by probe id
 * (probe_abi.h vars_off), one record per variable; PROBE_H_HIT: a hit
 * (time: at a line) with x0-x2. */
extern const struct probe_area_var *a64_probe_vars;
extern uint32_t a64_probe_nvars;
void a64_probe_var(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);
void a64_probe_hit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);

/*
 * Custom handlers (spool probe --handler SO, include/spool/probe.h): the
 * standard entry, exit and hit handlers, then the object's pre or post
 * under the fault guard (a64_agent_probe_hot.c). A fault there comes back
 * to a64_probe_fault (a64_agent_probe.c): the error handler, then the probe
 * removed (its original word written back). a64_probe_off[id]: a removed
 * probe's custom handlers no longer run (a thread already in its
 * trampoline).
 */
void a64_probe_user_entry(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);
void a64_probe_user_exit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);
void a64_probe_user_hit(uint32_t id, struct a64_probe_regs *regs, uint64_t sp);
extern uint8_t *a64_probe_off;
void a64_probe_fault(uint32_t id, const struct spool_probe_ctx *ctx, int sig);

/*
 * The program's signals while probes need some (a64_agent_sig.c).
 * chain: a signal that is not the agent's, to action o: its handler runs;
 * for the default action (or SIG_IGN of the thread's own trap or fault),
 * that action is put back and the instruction runs again (a sent signal is
 * sent again). blocked: sig arrived while the thread's own view blocks it:
 * held when sent, the default action when it is the thread's own trap or
 * fault; 1 when dealt with. trap_install: the BRK handler fn as SIGTRAP's
 * (0 or -errno), SIGTRAP kept from then on; trap_other: a SIGTRAP that is
 * not a probe's, to the program's disposition. fault_keep: the fault
 * signals are kept (custom handlers' guard installed). Signal-safe but
 * trap_install and fault_keep.
 */
void a64_sig_chain(const struct sigaction *o, int sig, siginfo_t *si, void *uc);
int a64_sig_blocked(int sig, siginfo_t *si, void *uc);
int a64_sig_trap_install(void (*fn)(int, siginfo_t *, void *));
/* attach mode, at the detach (no BRK of ours is left): the program's
 * SIGTRAP disposition back, if the action is still fn */
void a64_sig_trap_uninstall(void (*fn)(int, siginfo_t *, void *));
void a64_sig_trap_other(siginfo_t *si, void *uc);
void a64_sig_fault_keep(void);

/* The address of standard handler h (0: none); write one word of text. */
uint64_t a64_handler(uint64_t h);
int a64_poke(uint64_t addr, uint32_t w);

/*
 * Probe p (module base `base`, its module's probes ps[first, end)) as a
 * BRK where no branch to a trampoline can be placed (a64_agent_brk.c): its
 * status, PROBE_S_READY when its entry (and out-of-line slot) is ready;
 * the BRK is written by a64_brk_flush, which the placing of a module ends
 * with (p's status PROBE_S_PATCHED then, h->patched counted). handler:
 * a64_handler.
 */
int a64_brk_place(struct probe_area_hdr *h, struct probe_area_probe *ps, uint32_t first,
		  uint32_t end, struct probe_area_probe *p, uint64_t base,
		  uint64_t (*handler)(uint64_t));
void a64_brk_flush(struct probe_area_hdr *h);

/*
 * Attach mode (spool probe -p, a64_agent_probe.c): while set, placing
 * writes no B and no BRK into the program (their probes stay
 * PROBE_S_READY; a BRK one flagged PROBE_F_A64_BRK); spool's commit writes
 * them, the BRKs by a64_brk_commit (the BRKs written).
 */
extern int a64_attach_defer;
uint32_t a64_brk_commit(struct probe_area_hdr *h);
/* attach mode, spool's release (the detach's second stop, every BRK word
 * restored and no handler of ours in flight): SIGTRAP's disposition is the
 * program's again */
void a64_brk_detach(void);
/* SIGTRAP handlers of ours running now, in every thread (a thread inside
 * one may still return to an out-of-line slot, whose BRK needs the
 * handler): the release waits for none (spool_agent_probe_release). */
uint32_t a64_brk_busy(void);

#endif
