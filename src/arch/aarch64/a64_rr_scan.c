// SPDX-License-Identifier: MIT
/*
 * a64_rr_scan.c - spool record's scan on aarch64 (rr_scan_arch.h): the
 * names of aarch64 system call numbers (x86-64's legacy calls -- open,
 * poll, dup2, ... -- are not there: aarch64 has only their *at, p* and 2/3
 * forms), the calls the agent records, and the search of a code section
 * for the instructions a recording cannot see. The lookups and the ELF
 * walk are src/replay/rr_scan.c's.
 *
 * aarch64 instructions are 4 bytes, aligned: the scan reads every word of
 * the executable sections, no decoder needed (a literal pool word that
 * happens to match is counted too: the list says "at most"). The classes:
 *   RR_SCAN_SYSCALL  SVC #imm                (0xd4000001 | imm16 << 5)
 *   RR_SCAN_TSC      MRS Xt, CNTVCT_EL0 / CNTVCTSS_EL0, CNTPCT_EL0 /
 *                    CNTPCTSS_EL0 (the counters user space may read)
 */
#include <stdint.h>
#include <sys/syscall.h>

#include "../../replay/rr_scan_arch.h"

#define RR_SYS(n) {SYS_##n, #n}

static const struct rr_scan_sys a64_rr_sys_names[] = {
	RR_SYS(read), RR_SYS(write), RR_SYS(close), RR_SYS(fstat), RR_SYS(lseek), RR_SYS(mmap),
	RR_SYS(mprotect), RR_SYS(munmap), RR_SYS(brk), RR_SYS(rt_sigaction),
	RR_SYS(rt_sigprocmask), RR_SYS(rt_sigreturn), RR_SYS(ioctl), RR_SYS(pread64),
	RR_SYS(pwrite64), RR_SYS(readv), RR_SYS(writev), RR_SYS(sched_yield), RR_SYS(madvise),
	RR_SYS(dup), RR_SYS(nanosleep), RR_SYS(getpid), RR_SYS(socket), RR_SYS(connect),
	RR_SYS(accept), RR_SYS(sendto), RR_SYS(recvfrom), RR_SYS(sendmsg), RR_SYS(recvmsg),
	RR_SYS(bind), RR_SYS(listen), RR_SYS(clone), RR_SYS(execve), RR_SYS(exit),
	RR_SYS(wait4), RR_SYS(kill), RR_SYS(uname), RR_SYS(fcntl), RR_SYS(fsync),
	RR_SYS(getcwd), RR_SYS(chdir), RR_SYS(gettimeofday), RR_SYS(getrusage), RR_SYS(sysinfo),
	RR_SYS(getuid), RR_SYS(getgid), RR_SYS(geteuid), RR_SYS(getppid), RR_SYS(sigaltstack),
	RR_SYS(prctl), RR_SYS(gettid), RR_SYS(futex), RR_SYS(sched_getaffinity),
	RR_SYS(getdents64), RR_SYS(set_tid_address), RR_SYS(clock_gettime),
	RR_SYS(clock_getres), RR_SYS(clock_nanosleep), RR_SYS(exit_group), RR_SYS(epoll_ctl),
	RR_SYS(tgkill), RR_SYS(openat), RR_SYS(newfstatat), RR_SYS(pselect6), RR_SYS(ppoll),
	RR_SYS(set_robust_list), RR_SYS(epoll_pwait), RR_SYS(eventfd2), RR_SYS(epoll_create1),
	RR_SYS(pipe2), RR_SYS(accept4), RR_SYS(prlimit64), RR_SYS(getrandom),
	RR_SYS(memfd_create), RR_SYS(execveat), RR_SYS(statx), RR_SYS(rseq), RR_SYS(clone3),
	RR_SYS(rt_sigtimedwait), RR_SYS(rt_sigsuspend), RR_SYS(epoll_pwait2),
	RR_SYS(socketpair), RR_SYS(shutdown), RR_SYS(setsockopt), RR_SYS(getsockopt),
	RR_SYS(getsockname), RR_SYS(getpeername), RR_SYS(recvmmsg), RR_SYS(sendmmsg),
};

/* What agent_rr_syscall.c sends to the named interposers (the x86-64
 * list less the calls aarch64 does not have). */
static const long a64_rr_sys_rec[] = {
	SYS_read, SYS_pread64, SYS_readv, SYS_recvfrom, SYS_recvmsg, SYS_accept, SYS_accept4,
	SYS_clock_gettime, SYS_gettimeofday, SYS_getrandom, SYS_getpid, SYS_gettid,
	SYS_nanosleep, SYS_clock_nanosleep, SYS_write, SYS_writev, SYS_sched_yield, SYS_ppoll,
	SYS_pselect6, SYS_epoll_pwait, SYS_rt_sigtimedwait, SYS_rt_sigsuspend, SYS_epoll_pwait2,
	SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_shutdown,
	SYS_setsockopt, SYS_getsockopt, SYS_getsockname, SYS_getpeername, SYS_recvmmsg,
	SYS_sendmmsg, SYS_sysinfo,
};

const struct rr_scan_sys *rr_scan_arch_names(size_t *n)
{
	*n = sizeof(a64_rr_sys_names) / sizeof(a64_rr_sys_names[0]);
	return a64_rr_sys_names;
}

const long *rr_scan_arch_recorded(size_t *n)
{
	*n = sizeof(a64_rr_sys_rec) / sizeof(a64_rr_sys_rec[0]);
	return a64_rr_sys_rec;
}

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
