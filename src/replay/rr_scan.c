// SPDX-License-Identifier: MIT
/*
 * rr_scan.c - system call names for spool record's report of the program's
 * own system calls, and the static scan of an executable for the
 * instructions a recording cannot see (rr_scan.h): the lookups and the walk
 * of the ELF file's executable sections, the same on every CPU. The tables
 * and the instruction classifier are the CPU's (rr_scan_arch.h,
 * src/arch/<cpu>/).
 */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "../probe/probe.h"
#include "rr_scan.h"
#include "rr_scan_arch.h"

#define RR_SYS(n) RR_SCAN_SYS(n)

/* The calls every CPU has (the generic system call table: x86-64's legacy
 * ones are its own, rr_scan_arch.h), by this CPU's numbers. */
static const struct rr_scan_sys rr_sys_names[] = {
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
	RR_SYS(times),
};

/* What agent_rr_syscall.c sends to the named interposers (of the calls
 * every CPU has). */
static const long rr_sys_rec[] = {
	SYS_read, SYS_pread64, SYS_readv, SYS_recvfrom, SYS_recvmsg, SYS_accept, SYS_accept4,
	SYS_clock_gettime, SYS_gettimeofday, SYS_getrandom, SYS_getpid, SYS_gettid,
	SYS_nanosleep, SYS_clock_nanosleep, SYS_write, SYS_writev, SYS_sched_yield, SYS_ppoll,
	SYS_pselect6, SYS_epoll_pwait, SYS_rt_sigtimedwait, SYS_rt_sigsuspend, SYS_epoll_pwait2,
	SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_shutdown,
	SYS_setsockopt, SYS_getsockopt, SYS_getsockname, SYS_getpeername, SYS_recvmmsg,
	SYS_sendmmsg, SYS_sysinfo, SYS_getrusage, SYS_times,
};

const char *rr_sys_name(long nr)
{
	for (size_t i = 0; i < sizeof(rr_sys_names) / sizeof(rr_sys_names[0]); i++)
		if (rr_sys_names[i].nr == nr)
			return rr_sys_names[i].name;
	for (size_t i = 0; i < rr_scan_arch_nnames; i++)
		if (rr_scan_arch_names[i].nr == nr)
			return rr_scan_arch_names[i].name;
	return NULL;
}

int rr_sys_recorded(long nr)
{
	for (size_t i = 0; i < sizeof(rr_sys_rec) / sizeof(rr_sys_rec[0]); i++)
		if (rr_sys_rec[i] == nr)
			return 1;
	for (size_t i = 0; i < rr_scan_arch_nrecorded; i++)
		if (rr_scan_arch_recorded[i] == nr)
			return 1;
	return 0;
}

const struct probe_sym *rr_scan_sym(const struct probe_module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &m->syms[lo - 1] : NULL;
}

void rr_scan_note(struct rr_scan *out, int cls, const struct probe_sym *s, uint64_t addr,
		  const char *text)
{
	char *w = out->where[cls];
	size_t n = strlen(w), cap = sizeof(out->where[cls]);
	char loc[160];

	if (out->n[cls]++ >= 6) {
		if (out->n[cls] == 7 && n + 6 < cap)
			snprintf(w + n, cap - n, ", ...");
		return;
	}
	if (s && addr < s->addr + s->size)
		snprintf(loc, sizeof(loc), "%s+%#llx", s->name, (unsigned long long)(addr - s->addr));
	else if (s)
		snprintf(loc, sizeof(loc), "%#llx (after %s)", (unsigned long long)addr, s->name);
	else
		snprintf(loc, sizeof(loc), "%#llx", (unsigned long long)addr);
	if (n + strlen(loc) + strlen(text) + 8 < cap)
		snprintf(w + n, cap - n, "%s%s at %s", n ? ", " : "", text, loc);
}

int rr_scan_exe(const char *path, struct rr_scan *out)
{
	struct probe_module m;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = probe_module_open(&m, path, 1);
	if (rc < 0)
		goto out_close;
	while ((scn = elf_nextscn(m.elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type != SHT_PROGBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			continue;
		rr_scan_arch_section(&m, sh.sh_addr, d->d_buf, d->d_size, out);
	}
out_close:
	probe_module_close(&m);
	return rc < 0 ? rc : 0;
}
