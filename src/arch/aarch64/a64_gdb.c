// SPDX-License-Identifier: MIT
/*
 * a64_gdb.c - the aarch64 side of `spool replay --gdbserver`
 * (src/arch/arch_gdb.h): gdb's registers read and written through the
 * kernel's register sets (NT_PRSTATUS, NT_FPREGSET; the layout is
 * a64_gdb_regs.c's), software breakpoints as BRK #0, and the trap kinds:
 *
 *   - BRK reports SIGTRAP/TRAP_BRKPT with the pc at the BRK itself (not
 *     after it, as x86's int3);
 *   - a hardware single step reports TRAP_TRACE;
 *   - a single step over `svc #0` is reported at the call's exit by the
 *     kernel's generic user_single_step_report: SIGTRAP with SI_USER and
 *     no sender (si_pid 0), where x86 says TRAP_BRKPT.
 *
 * Hardware watchpoints are the kernel's NT_ARM_HW_WATCH set: one register
 * pair per watchpoint, the address rounded down to 8 bytes and a control
 * word (enabled, EL0, load/store, the bytes watched of those 8). A hit is
 * SIGTRAP/TRAP_HWBKPT with si_addr the address accessed, before the access
 * (ARCH_GDB_WATCH_BEFORE: gdbsrv_inf.c steps the thread over it).
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../replay/gdbsrv_int.h"
#include "../arch_gdb.h"
#include "a64_gdb_regs.h"

_Static_assert(ARCH_GDB_NREGS == A64_GDB_NREGS, "gdb's aarch64 register count");

/* BRK #0, little endian */
const uint8_t arch_gdb_bp_insn[ARCH_GDB_BP_LEN] = {0x00, 0x00, 0x20, 0xd4};

static int regset(pid_t tid, int set, void *buf, size_t len, int write)
{
	struct iovec iov = {buf, len};
	long nt = set == A64_GDB_SET_GPR ? NT_PRSTATUS : NT_FPREGSET;

	if (ptrace(write ? PTRACE_SETREGSET : PTRACE_GETREGSET, tid, (void *)nt, &iov) < 0)
		return -errno;
	return 0;
}

int arch_gdb_reg_size(int regno)
{
	int set, size;
	size_t off;

	if (a64_gdb_reg_loc(regno, &set, &off, &size) < 0)
		return -EINVAL;
	return size;
}

int arch_gdb_reg_get(pid_t tid, int regno, uint8_t *out)
{
	uint8_t buf[A64_GDB_FP_BYTES];
	int set, size, rc;
	size_t off;

	if (a64_gdb_reg_loc(regno, &set, &off, &size) < 0)
		return -EINVAL;
	rc =
	    regset(tid, set, buf, set == A64_GDB_SET_GPR ? A64_GDB_GPR_BYTES : A64_GDB_FP_BYTES, 0);
	if (rc < 0)
		return rc;
	memcpy(out, buf + off, (size_t)size);
	return size;
}

/* Read, change the register's bytes (cpsr: the low half of pstate, the
 * rest kept), write back. */
int arch_gdb_reg_set(pid_t tid, int regno, const uint8_t *in)
{
	uint8_t buf[A64_GDB_FP_BYTES];
	size_t off, len;
	int set, size, rc;

	if (a64_gdb_reg_loc(regno, &set, &off, &size) < 0)
		return -EINVAL;
	len = set == A64_GDB_SET_GPR ? A64_GDB_GPR_BYTES : A64_GDB_FP_BYTES;
	rc = regset(tid, set, buf, len, 0);
	if (rc < 0)
		return rc;
	memcpy(buf + off, in, (size_t)size);
	return regset(tid, set, buf, len, 1);
}

const char *arch_gdb_target_xml(size_t *len)
{
	return a64_gdb_target_xml(len);
}

int arch_gdb_trap_sw(const siginfo_t *si)
{
	return si->si_code == TRAP_BRKPT;
}

uint64_t arch_gdb_trap_bp_addr(uint64_t pc)
{
	return pc;
}

int arch_gdb_trap_sysstep(const siginfo_t *si)
{
	return si->si_code == SI_USER && si->si_pid == 0;
}

int arch_gdb_trap_hw(const siginfo_t *si)
{
	return si->si_code == TRAP_TRACE || si->si_code == TRAP_HWBKPT;
}

/* nothing traps feature reads here (doc/arm64.md) */
int arch_gdb_spool_segv(const siginfo_t *si, const uint8_t *insn, size_t n)
{
	return 0;
}

#ifndef NT_ARM_HW_WATCH
#define NT_ARM_HW_WATCH 0x403
#endif

/* struct user_hwdebug_state (asm/ptrace.h), the registers used */
struct a64_hwdebug {
	uint32_t dbg_info; /* low byte: the number of watchpoint registers */
	uint32_t pad;
	struct {
		uint64_t addr;
		uint32_t ctrl;
		uint32_t pad;
	} regs[GDBSRV_MAX_WP];
};

int arch_gdb_watch_ok(uint64_t addr, uint32_t len, uint32_t type)
{
	/* gdbsrv.c has checked len (1, 2, 4, 8) and addr % len: the bytes
	 * are inside one aligned 8 */
	return type >= 2 && type <= 4 && (addr & 7) + len <= 8 ? 0 : -ENOTSUP;
}

void arch_gdb_watch_set(pid_t tid, const struct gdbsrv_wp *wp, uint32_t n)
{
	struct a64_hwdebug d;
	struct iovec v = {&d, sizeof(d)};
	uint32_t have = GDBSRV_MAX_WP;

	memset(&d, 0, sizeof(d));
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_HW_WATCH, &v) == 0 &&
	    (d.dbg_info & 0xff) < have)
		have = d.dbg_info & 0xff;
	memset(&d, 0, sizeof(d));
	for (uint32_t i = 0; i < n && i < have; i++)
		d.regs[i].ctrl = a64_gdb_watch_ctrl(wp[i].addr, wp[i].len, wp[i].type);
	for (uint32_t i = 0; i < n && i < have; i++)
		d.regs[i].addr = wp[i].addr & ~7ull;
	/* every register this thread has, the unused ones off */
	v.iov_len = offsetof(struct a64_hwdebug, regs) + (size_t)have * sizeof(d.regs[0]);
	ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_HW_WATCH, &v);
}

int arch_gdb_watch_hit(pid_t tid, const struct gdbsrv_wp *wp, uint32_t n)
{
	siginfo_t si;
	uint64_t a;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) < 0 || si.si_code != TRAP_HWBKPT)
		return -1;
	a = (uint64_t)(uintptr_t)si.si_addr;
	for (uint32_t i = 0; i < n; i++)
		if (a >= wp[i].addr && a < wp[i].addr + wp[i].len)
			return (int)i;
	/* an access that began below (a pair or a vector store): the
	 * aligned 8 bytes the register watches */
	for (uint32_t i = 0; i < n; i++)
		if ((a & ~7ull) == (wp[i].addr & ~7ull))
			return (int)i;
	return n == 1 ? 0 : -1;
}

/*
 * A reverse-step single-steps a thread from an earlier stop up to the
 * current one (gdbsrv_rev.c), and most of those steps were the agent's
 * stack zeroing after each stub's call (4 KiB: 768 steps; agent_stack_scrub
 * 64 KiB: 12,288): in the emulated VM, minutes for one reverse-next. The
 * loop is recognised by its three words and run here but for its last
 * store; which steps a stepped thread makes depends only on its state, so
 * every replay of a point steps the same way (a point is named by its
 * instructions, gdbsrv_rev.c). Limits: both ends 16-aligned, x10 below x9,
 * at most 1 MiB (the spans are 64 KiB at most); a breakpoint on one of the
 * words (they then read as BRK) turns it off.
 */
#define A64_FILL_STP 0xa8817d5fu /* stp xzr, xzr, [x10], #16 */
#define A64_FILL_CMP 0xeb09015fu /* cmp x10, x9 */
#define A64_FILL_BLO 0x54ffffc3u /* b.lo .-8 */
#define A64_FILL_MAX (1u << 20)

int arch_gdb_step_fill(pid_t tid)
{
	static const uint8_t zero[4096];
	struct iovec loc[64], rem, r_iov;
	uint64_t gpr[34]; /* struct user_pt_regs: x0-x30, sp, pc, pstate */
	uint32_t w[3];
	uint64_t lo, hi;
	size_t n, len;

	r_iov.iov_base = gpr;
	r_iov.iov_len = sizeof(gpr);
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &r_iov) < 0 ||
	    r_iov.iov_len != sizeof(gpr))
		return 0;
	loc[0].iov_base = w;
	loc[0].iov_len = sizeof(w);
	rem.iov_base = (void *)(uintptr_t)gpr[32];
	rem.iov_len = sizeof(w);
	if (process_vm_readv(tid, loc, 1, &rem, 1, 0) != (ssize_t)sizeof(w) ||
	    w[0] != A64_FILL_STP || w[1] != A64_FILL_CMP || w[2] != A64_FILL_BLO)
		return 0;
	lo = gpr[10];
	hi = gpr[9];
	if (((lo | hi) & 15) || lo >= hi || hi - lo <= 16 || hi - lo > A64_FILL_MAX)
		return 0;
	/* [lo, hi - 16): the stores before the last */
	while (lo < hi - 16) {
		len = hi - 16 - lo;
		n = 0;
		while (n < 64 && len) {
			size_t k = len < sizeof(zero) ? len : sizeof(zero);

			loc[n].iov_base = (void *)zero;
			loc[n].iov_len = k;
			len -= k;
			n++;
		}
		rem.iov_base = (void *)(uintptr_t)lo;
		rem.iov_len = (hi - 16 - lo) - len;
		if (process_vm_writev(tid, loc, n, &rem, 1, 0) != (ssize_t)rem.iov_len)
			return 0; /* the loop's own steps do the rest */
		lo += rem.iov_len;
	}
	gpr[10] = hi - 16;
	r_iov.iov_base = gpr;
	r_iov.iov_len = sizeof(gpr);
	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &r_iov) < 0)
		return 0;
	return 1;
}
