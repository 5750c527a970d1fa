// SPDX-License-Identifier: MIT
/*
 * run_ident.h - what a program inherits from the process that starts it
 * besides its command line and environment: its personality (the
 * ADDR_NO_RANDOMIZE flag among others), its umask, its resource limits,
 * and its signal mask and ignored signals.
 *
 * spool record runs the program with address-space randomization off
 * (personality ADDR_NO_RANDOMIZE), so its heap, mappings and stack are at
 * the same addresses in every run: a replay hands back pointers the program
 * got from its inputs (epoll_event.data, mmap results, addresses written to
 * a pipe), and they must be valid there. It notes the personality, umask,
 * limits and signal state the program ran with in the recording
 * (.spool/record: personality=, aslr=, umask=, rlimit_NAME=CUR:MAX,
 * sig_blocked=, sig_ignored=), and spool replay gives them back before the
 * exec: a stack limit moves the base of the program's mappings, a
 * descriptor limit sizes a server's tables, a program under nohup survives
 * the SIGHUP it would die of, and none of getrlimit, umask, sigprocmask and
 * sigaction is a recorded input.
 */
#ifndef SPOOL_COLLECT_RUN_IDENT_H
#define SPOOL_COLLECT_RUN_IDENT_H

#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/resource.h>

#define RUN_IDENT_NLIMITS 16 /* RLIMIT_* numbers 0..15 (RLIM_NLIMITS on Linux) */
#define RUN_IDENT_SIG_BLOCKED 1 /* sig_blocked= read */
#define RUN_IDENT_SIG_IGNORED 2 /* sig_ignored= read */
#define RUN_IDENT_SIG_BOTH 3	/* the signal state is known */

struct run_ident {
	int persona_set;       /* run the program with persona */
	unsigned long persona; /* personality(2) value */
	int umask_set;
	unsigned umask;
	uint32_t rlim_set; /* bit r: set rlim[r] */
	struct rlimit rlim[RUN_IDENT_NLIMITS];
	/* record: address-space randomization was on for the program
	 * (personality refused, or a recording that cannot know); aslr_err
	 * is the errno of the refusal, 0 when it was not asked */
	int aslr;
	int aslr_err;
	/* the signal mask and the ignored signals the program inherited
	 * (bit N-1: signal N; SIGKILL and SIGSTOP never set): exec keeps
	 * both, and a program started by nohup, a service manager or a
	 * parent that blocks every signal behaves otherwise (its
	 * sigprocmask and sigaction results, which are not recorded inputs,
	 * and a signal it sends itself) */
	int sig_set; /* RUN_IDENT_SIG_*: both, or no signal state */
	uint64_t sig_blocked;
	uint64_t sig_ignored;
};

/* spool's own umask and limits (the program inherits them) and its
 * personality with ADDR_NO_RANDOMIZE added, and its signal mask and
 * ignored signals: what spool record runs the program with. Called before
 * spool installs its own handlers. */
void run_ident_for_record(struct run_ident *id);
/* Write id as lines of the record side file. */
void run_ident_format(const struct run_ident *id, FILE *f);
/* Take the line KEY=VAL of a record side file into id when it is one of
 * ours; 1 when it was, 0 when not. Bounded: values out of range are
 * ignored. */
int run_ident_parse(struct run_ident *id, const char *key, const char *val);
/* Whether spool's own limits differ from those id sets: then they can be
 * set only in a forked child (spool's own must stay). */
int run_ident_limits_differ(const struct run_ident *id);
/* The limits of id that cannot be given back (a soft or hard limit above
 * spool's hard limit, which only root can raise), named into buf
 * ("nofile 65536 > 4096, ..."); 0 when all can. */
int run_ident_limits_unreachable(const struct run_ident *id, char *buf, size_t len);
/* Whether a program spawned now from the calling thread would start with
 * another signal mask or other ignored signals than id's; for a signal in
 * `own` the caller sets the disposition itself (ignored when in own_ign).
 * Then only a forked child can start it with id's (posix_spawn cannot
 * ignore a signal). 0 for a recording without a signal state. */
int run_ident_sigs_differ(const struct run_ident *id, const sigset_t *own,
			  const sigset_t *own_ign);
/* A set of sig_blocked or sig_ignored as text: "HUP,USR2", "all" (every
 * signal that can be blocked), "none". */
void run_ident_sig_names(uint64_t set, char *buf, size_t len);
/* In a forked child before exec: set id's umask, limits (each lowered to
 * what can be set when spool's hard limit is lower) and personality.
 * Async-signal-safe (system calls only). */
void run_ident_apply_child(const struct run_ident *id);
/* In a forked child right before the program's exec (not gdb's: it would
 * run with the program's blocked and ignored signals): id's ignored
 * signals (the others not ignored; exec resets caught ones), then its
 * signal mask. Async-signal-safe. */
void run_ident_apply_sigs_child(const struct run_ident *id);
/*
 * A trace is untrusted (it may come from someone else): of a recorded
 * personality, a replay takes only the flags that place mappings
 * (ADDR_NO_RANDOMIZE, ADDR_COMPAT_LAYOUT) and UNAME26; the others
 * (READ_IMPLIES_EXEC, which makes every readable page executable,
 * MMAP_PAGE_ZERO, the address limits, the execution domain) are spool's
 * own. Rewrites id->persona; returns the recorded flags it did not take.
 */
unsigned long run_ident_trust_persona(struct run_ident *id);
/* The name of limit r ("nofile"), or NULL. */
const char *run_ident_limit_name(int r);
/* Whether address-space randomization is off for a program run with
 * personality p on this kernel (ADDR_NO_RANDOMIZE set, or
 * /proc/sys/kernel/randomize_va_space is 0). */
int run_ident_fixed_layout(unsigned long p);

#endif
