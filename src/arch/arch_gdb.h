// SPDX-License-Identifier: MIT
/*
 * arch_gdb.h - what the gdb server (`spool replay --gdbserver`,
 * src/replay/gdbsrv*.c) needs of the CPU: the registers in gdb's order for
 * the architecture and the target description that names them, the
 * software breakpoint instruction and where a trap on it reports the pc,
 * how the kernel says a SIGTRAP is a breakpoint, a step or a step over a
 * system call, and the hardware watchpoints. Everything else of the gdb
 * server is the same on every architecture.
 *
 *   x86-64   src/arch/x86_64/x86_gdb.c: org.gnu.gdb.i386.{core,sse,linux,
 *            segments}, PTRACE_GETREGS/GETFPREGS; int3 (0xcc), reported
 *            with the ip after it; watchpoints in DR0-3 (DR7, DR6)
 *   aarch64  src/arch/aarch64/a64_gdb.c (ptrace) and a64_gdb_regs.c (the
 *            layout and the description, any host): org.gnu.gdb.aarch64.
 *            {core,fpu}, NT_PRSTATUS/NT_FPREGSET; BRK #0 (0xd4200000),
 *            reported at the BRK's own pc; watchpoints in NT_ARM_HW_WATCH,
 *            which trap before the access (ARCH_GDB_WATCH_BEFORE)
 *
 * Host side only (spool). Functions return 0 or -errno unless said.
 */
#ifndef SPOOL_ARCH_ARCH_GDB_H
#define SPOOL_ARCH_ARCH_GDB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#if defined(__x86_64__)
/* 0-15 rax..r15, 16 rip, 17 eflags, 18-23 segments, 24-31 st0-7, 32-39 the
 * x87 control registers, 40-55 xmm0-15, 56 mxcsr, 57 orig_rax, 58-59 fs/gs
 * base */
#define ARCH_GDB_NREGS 60
#define ARCH_GDB_BP_LEN 1
#define ARCH_GDB_CKPT 1
#define ARCH_GDB_WATCH_BEFORE 0
/* no arch_gdb_step_fill (the stubs' zeroing is one rep stosq) */
#define ARCH_GDB_STEP_FILL 0
#elif defined(__aarch64__)
/* 0-30 x0..x30, 31 sp, 32 pc, 33 cpsr, 34-65 v0-v31, 66 fpsr, 67 fpcr */
#define ARCH_GDB_NREGS 68
#define ARCH_GDB_BP_LEN 4
#define ARCH_GDB_CKPT 1
/* a watchpoint traps before the access (gdb's aarch64 steps over it) */
#define ARCH_GDB_WATCH_BEFORE 1
/* arch_gdb_step_fill: the stubs' zeroing loops run whole in one step */
#define ARCH_GDB_STEP_FILL 1
#else
#error "spool: the gdb server is x86-64 and aarch64 only"
#endif

/* The largest register, in bytes (x86-64 xmm, aarch64 v). */
#define ARCH_GDB_REG_MAX 16

/* The software breakpoint written over the program's code (little endian
 * bytes): ARCH_GDB_BP_LEN of them. */
extern const uint8_t arch_gdb_bp_insn[ARCH_GDB_BP_LEN];

/* Bytes of register regno in gdb's packets, -EINVAL when there is none. */
int arch_gdb_reg_size(int regno);
/* Register regno of a stopped thread: its bytes (the size), or -errno. */
int arch_gdb_reg_get(pid_t tid, int regno, uint8_t *out);
int arch_gdb_reg_set(pid_t tid, int regno, const uint8_t *in);
/* qXfer:features:read:target.xml (built once, static). */
const char *arch_gdb_target_xml(size_t *len);

/* Could this SIGTRAP come from a software breakpoint (x86-64 int3 or a
 * step's report at a system call's exit, both looked at; aarch64 BRK)? */
int arch_gdb_trap_sw(const siginfo_t *si);
/* Where the breakpoint instruction is, for the pc a breakpoint trap
 * reported (x86-64 the ip after the int3, aarch64 the BRK's pc). */
uint64_t arch_gdb_trap_bp_addr(uint64_t pc);
/* Is this the kernel's report of a single step that ended at a system
 * call's exit (x86-64 TRAP_BRKPT; aarch64 SI_USER from the kernel)? */
int arch_gdb_trap_sysstep(const siginfo_t *si);
/* A hardware single step or watchpoint trap (TRAP_TRACE, TRAP_HWBKPT)? */
int arch_gdb_trap_hw(const siginfo_t *si);
/* Is this SIGSEGV spool's own, the program's cpuid under CPUID faulting
 * (x86-64: si_code SI_KERNEL and the bytes 0f a2 at the pc, insn: the n
 * bytes read there), which the agent answers and gdb must not see?
 * aarch64: never. */
int arch_gdb_spool_segv(const siginfo_t *si, const uint8_t *insn, size_t n);

#if ARCH_GDB_STEP_FILL
/* Before a single step of stopped thread tid: when its pc is at the
 * zeroing loop of the agent's entry stubs (AGENT_SCRUB in
 * src/arch/aarch64/agent_stub.h: `stp xzr, xzr, [x10], #16; cmp x10, x9;
 * b.lo` back), all but the loop's last store are done here (the memory
 * zeroed, x10 moved), so the step runs the last one: the same memory and
 * registers after the loop as when stepped through. 1 when done, 0 not such
 * a loop (or any doubt), nothing changed. */
int arch_gdb_step_fill(pid_t tid);
#endif

/* Watchpoints: 0 when this one can be inserted, -ENOTSUP when this CPU's
 * port has none of this kind (type: the Z packet's 2, 3, 4). */
int arch_gdb_watch_ok(uint64_t addr, uint32_t len, uint32_t type);
/* Thread tid's watchpoints become these n (addr, len, type as above). */
struct gdbsrv_wp;
void arch_gdb_watch_set(pid_t tid, const struct gdbsrv_wp *wp, uint32_t n);
/* Which of the n watchpoints wp (its index) stopped thread tid at a
 * TRAP_HWBKPT or TRAP_TRACE, -1 none; the hit is cleared. */
int arch_gdb_watch_hit(pid_t tid, const struct gdbsrv_wp *wp, uint32_t n);

/*
 * ARCH_GDB_WATCH_BEFORE: x86-64's watchpoints trap after the access, Arm's
 * before it (the instruction has not run; the kernel leaves the step over
 * it to the debugger). The gdb server keeps x86-64's model everywhere (a
 * watchpoint stop is after the access: the reverse search, the hits
 * counted and passed): on Arm the thread is stepped over the access with
 * its watchpoints off as soon as the trap is seen (gdbsrv_inf.c). gdb for
 * aarch64 steps over a watchpoint itself after the stop (its
 * "nonsteppable" watchpoints: the watchpoints removed, one step, in the
 * direction it goes): the gdb server answers that one step in place
 * (gdbsrv.c), so gdb stops where it would on a native Arm target.
 */

#endif
