// SPDX-License-Identifier: MIT
/*
 * a64_rr_scan.c - spool record's scan on aarch64 (rr_scan_arch.h): no
 * system calls of its own (x86-64's legacy calls -- open, poll, dup2, ...
 * -- are not there: aarch64 has only their *at, p* and 2/3 forms, in the
 * generic table of src/replay/rr_scan.c), and the search of a code section
 * for the instructions a recording cannot see. The lookups and the ELF
 * walk are rr_scan.c's.
 *
 * aarch64 instructions are 4 bytes, aligned: the scan reads every word of
 * the executable sections, no decoder needed (a literal pool word that
 * happens to match is counted too: the list says "at most"). The classes:
 *   RR_SCAN_SYSCALL  SVC #imm                (0xd4000001 | imm16 << 5)
 *   RR_SCAN_TSC      MRS Xt, CNTVCT_EL0 / CNTVCTSS_EL0, CNTPCT_EL0 /
 *                    CNTPCTSS_EL0 (the counters user space may read)
 */
#include <stdint.h>

#include "../../replay/rr_scan_arch.h"

/* aarch64 has the generic system call table only (rr_scan.c): no calls of
 * its own. (A one-entry array: C has no empty ones.) */
const struct rr_scan_sys rr_scan_arch_names[] = {{-1, NULL}};
const size_t rr_scan_arch_nnames = 0;
const long rr_scan_arch_recorded[] = {-1};
const size_t rr_scan_arch_nrecorded = 0;

/* The class of instruction word w, -1 for none; *text its mnemonic. */
static int a64_scan_class(uint32_t w, const char **text)
{
	if ((w & 0xffe0001fu) == 0xd4000001u) {
		*text = "svc";
		return RR_SCAN_SYSCALL;
	}
	/* MRS Xt, <sysreg>: 0xd5300000 | o0:op1:CRn:CRm:op2 << 5 | Rt; the
	 * counters are op0=3 op1=3 CRn=14 CRm=0 op2=1 (CNTPCT), 2 (CNTVCT),
	 * 5 (CNTPCTSS), 6 (CNTVCTSS). */
	if ((w & 0xffffffe0u) == 0xd53be040u || (w & 0xffffffe0u) == 0xd53be0c0u) {
		*text = "mrs cntvct_el0";
		return RR_SCAN_TSC;
	}
	if ((w & 0xffffffe0u) == 0xd53be020u || (w & 0xffffffe0u) == 0xd53be0a0u) {
		*text = "mrs cntpct_el0";
		return RR_SCAN_TSC;
	}
	return -1;
}

void rr_scan_arch_section(const struct probe_module *m, uint64_t base, const uint8_t *code,
			  size_t size, struct rr_scan *out)
{
	/* Little-endian words at 4-byte aligned addresses. */
	for (uint64_t off = (4 - (base & 3)) & 3; off + 4 <= size; off += 4) {
		uint32_t w = (uint32_t)code[off] | (uint32_t)code[off + 1] << 8 |
			     (uint32_t)code[off + 2] << 16 | (uint32_t)code[off + 3] << 24;
		const char *text;
		int cls = a64_scan_class(w, &text);

		if (cls >= 0)
			rr_scan_note(out, cls, rr_scan_sym(m, base + off), base + off, text);
	}
}
