// SPDX-License-Identifier: MIT
/*
 * x86_rr_scan.c - spool record's scan on x86-64 (rr_scan_arch.h): the
 * names of x86-64 system call numbers, the calls the agent records, and
 * the search of a code section for the instructions a recording cannot
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

#define RR_SYS(n) {SYS_##n, #n}

static const struct rr_scan_sys x86_rr_sys_names[] = {
	RR_SYS(read), RR_SYS(write), RR_SYS(open), RR_SYS(close), RR_SYS(stat), RR_SYS(fstat),
	RR_SYS(lstat), RR_SYS(poll), RR_SYS(lseek), RR_SYS(mmap), RR_SYS(mprotect),
	RR_SYS(munmap), RR_SYS(brk), RR_SYS(rt_sigaction), RR_SYS(rt_sigprocmask),
	RR_SYS(rt_sigreturn), RR_SYS(ioctl), RR_SYS(pread64), RR_SYS(pwrite64), RR_SYS(readv),
	RR_SYS(writev), RR_SYS(access), RR_SYS(pipe), RR_SYS(select), RR_SYS(sched_yield),
	RR_SYS(madvise), RR_SYS(dup), RR_SYS(dup2), RR_SYS(pause), RR_SYS(nanosleep),
	RR_SYS(getpid), RR_SYS(socket), RR_SYS(connect), RR_SYS(accept), RR_SYS(sendto),
	RR_SYS(recvfrom), RR_SYS(sendmsg), RR_SYS(recvmsg), RR_SYS(bind), RR_SYS(listen),
	RR_SYS(clone), RR_SYS(fork), RR_SYS(vfork), RR_SYS(execve), RR_SYS(exit),
	RR_SYS(wait4), RR_SYS(kill), RR_SYS(uname), RR_SYS(fcntl), RR_SYS(fsync),
	RR_SYS(getcwd), RR_SYS(chdir), RR_SYS(rename), RR_SYS(mkdir), RR_SYS(unlink),
	RR_SYS(readlink), RR_SYS(gettimeofday), RR_SYS(getrusage), RR_SYS(sysinfo),
	RR_SYS(getuid), RR_SYS(getgid), RR_SYS(geteuid), RR_SYS(getppid), RR_SYS(sigaltstack),
	RR_SYS(prctl), RR_SYS(arch_prctl), RR_SYS(gettid), RR_SYS(time), RR_SYS(futex),
	RR_SYS(sched_getaffinity), RR_SYS(getdents64), RR_SYS(set_tid_address),
	RR_SYS(clock_gettime), RR_SYS(clock_getres), RR_SYS(clock_nanosleep),
	RR_SYS(exit_group), RR_SYS(epoll_wait), RR_SYS(epoll_ctl), RR_SYS(tgkill),
	RR_SYS(openat), RR_SYS(newfstatat), RR_SYS(pselect6), RR_SYS(ppoll),
	RR_SYS(set_robust_list), RR_SYS(epoll_pwait), RR_SYS(eventfd2), RR_SYS(epoll_create1),
	RR_SYS(pipe2), RR_SYS(accept4), RR_SYS(prlimit64), RR_SYS(getrandom),
	RR_SYS(memfd_create), RR_SYS(execveat), RR_SYS(statx), RR_SYS(rseq), RR_SYS(clone3),
	RR_SYS(rt_sigtimedwait), RR_SYS(rt_sigsuspend), RR_SYS(epoll_pwait2),
	RR_SYS(socketpair), RR_SYS(shutdown), RR_SYS(setsockopt), RR_SYS(getsockopt),
	RR_SYS(getsockname), RR_SYS(getpeername), RR_SYS(recvmmsg), RR_SYS(sendmmsg),
};

/* What agent_rr_syscall.c sends to the named interposers. */
static const long x86_rr_sys_rec[] = {
	SYS_read, SYS_pread64, SYS_readv, SYS_recvfrom, SYS_recvmsg, SYS_accept, SYS_accept4,
	SYS_poll, SYS_select, SYS_epoll_wait, SYS_clock_gettime, SYS_gettimeofday, SYS_time,
	SYS_getrandom, SYS_getpid, SYS_gettid, SYS_nanosleep, SYS_clock_nanosleep, SYS_write,
	SYS_writev, SYS_sched_yield, SYS_ppoll, SYS_pselect6, SYS_epoll_pwait,
	SYS_rt_sigtimedwait, SYS_pause, SYS_rt_sigsuspend, SYS_epoll_pwait2,
	SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_shutdown,
	SYS_setsockopt, SYS_getsockopt, SYS_getsockname, SYS_getpeername, SYS_recvmmsg,
	SYS_sendmmsg, SYS_sysinfo,
};

const struct rr_scan_sys *rr_scan_arch_names(size_t *n)
{
	*n = sizeof(x86_rr_sys_names) / sizeof(x86_rr_sys_names[0]);
	return x86_rr_sys_names;
}

const long *rr_scan_arch_recorded(size_t *n)
{
	*n = sizeof(x86_rr_sys_rec) / sizeof(x86_rr_sys_rec[0]);
	return x86_rr_sys_rec;
}

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
