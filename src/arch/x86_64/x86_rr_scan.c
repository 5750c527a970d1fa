// SPDX-License-Identifier: MIT
/*
 * x86_rr_scan.c - spool record's scan on x86-64 (rr_scan_arch.h): the
 * names of x86-64's own system calls (its legacy ones), those of them the
 * agent records, and the search of a code section for the instructions a recording cannot
 * see: `syscall`, `sysenter`, `int 0x80`, `rdtsc`, `rdtscp`.
 *
 * The scan looks for the byte patterns of the instructions first (most
 * programs have none, so most scans decode nothing), then decodes from the
 * nearest function symbol before each candidate, so a match is an
 * instruction and not two bytes inside another one.
 */
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "../../probe/probe.h"
#include "../../replay/rr_scan_arch.h"
#include "x86_insn.h"

/* x86-64's calls that the generic table (rr_scan.c) does not have: the
 * legacy forms aarch64 and newer CPUs replaced with *at, p* and 2/3 calls. */
const struct rr_scan_sys rr_scan_arch_names[] = {
	RR_SCAN_SYS(open), RR_SCAN_SYS(stat), RR_SCAN_SYS(lstat), RR_SCAN_SYS(poll),
	RR_SCAN_SYS(access), RR_SCAN_SYS(pipe), RR_SCAN_SYS(select), RR_SCAN_SYS(dup2),
	RR_SCAN_SYS(pause), RR_SCAN_SYS(fork), RR_SCAN_SYS(vfork), RR_SCAN_SYS(rename),
	RR_SCAN_SYS(mkdir), RR_SCAN_SYS(unlink), RR_SCAN_SYS(readlink), RR_SCAN_SYS(arch_prctl),
	RR_SCAN_SYS(time), RR_SCAN_SYS(epoll_wait),
};
const size_t rr_scan_arch_nnames = sizeof(rr_scan_arch_names) / sizeof(rr_scan_arch_names[0]);

/* Of those, what agent_rr_syscall.c sends to the named interposers. */
const long rr_scan_arch_recorded[] = {SYS_poll, SYS_select, SYS_epoll_wait, SYS_time, SYS_pause,
				      SYS_fork};
const size_t rr_scan_arch_nrecorded =
    sizeof(rr_scan_arch_recorded) / sizeof(rr_scan_arch_recorded[0]);

/* Which class the decoded instruction is in, -1 for none. */
static int x86_rr_scan_class(const char *text)
{
	if (!strcmp(text, "syscall") || !strcmp(text, "sysenter") || !strcmp(text, "int 0x80"))
		return RR_SCAN_SYSCALL;
	if (!strcmp(text, "rdtsc") || !strcmp(text, "rdtscp"))
		return RR_SCAN_TSC;
	return -1;
}

/* The first bytes of every instruction of both classes. */
static int x86_rr_scan_candidate(const uint8_t *p, size_t avail)
{
	if (avail < 2)
		return 0;
	if (p[0] == 0xcd && p[1] == 0x80)
		return 1;
	if (p[0] != 0x0f)
		return 0;
	return p[1] == 0x05 || p[1] == 0x34 || p[1] == 0x31 ||
	       (p[1] == 0x01 && avail >= 3 && p[2] == 0xf9);
}

void rr_scan_arch_section(const struct probe_module *m, uint64_t base, const uint8_t *code,
			  size_t size, struct rr_scan *out)
{
	uint64_t done = base; /* decoded up to here */

	for (size_t off = 0; off + 1 < size; off++) {
		uint64_t at = base + off, pc;
		const struct probe_sym *s;

		if (!x86_rr_scan_candidate(code + off, size - off) || at < done)
			continue;
		/* Decode from the function around it (or the section start). */
		s = rr_scan_sym(m, at);
		pc = s && s->addr >= base && s->addr > done ? s->addr : done;
		while (pc <= at) {
			struct x86_insn in;
			int cls;

			if (x86_decode(code + (pc - base), size - (pc - base), pc, &in) < 0) {
				pc++;
				continue;
			}
			cls = x86_rr_scan_class(x86_insn_text(&in));
			if (cls >= 0)
				rr_scan_note(out, cls, rr_scan_sym(m, pc), pc, x86_insn_text(&in));
			pc += in.len;
		}
		done = pc;
	}
}
