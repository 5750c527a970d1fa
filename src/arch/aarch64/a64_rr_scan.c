// SPDX-License-Identifier: MIT
/*
 * a64_rr_scan.c - rr_scan.h on aarch64: the names of aarch64 system call
 * numbers, and the scan of an executable for the instructions a recording
 * cannot see. It replaces src/replay/rr_scan.c, whose tables name x86-64's
 * legacy calls (open, poll, dup2, ...; aarch64 has only their *at, p* and
 * 2/3 forms) and whose scan decodes x86 with Zydis.
 *
 * aarch64 instructions are 4 bytes, aligned: the scan reads every word of
 * the executable sections, no decoder needed (a literal pool word that
 * happens to match is counted too: the list says "at most"). The classes:
 *   RR_SCAN_SYSCALL  SVC #imm                (0xd4000001 | imm16 << 5)
 *   RR_SCAN_TSC      MRS Xt, CNTVCT_EL0 / CNTVCTSS_EL0, CNTPCT_EL0 /
 *                    CNTPCTSS_EL0 (the counters user space may read)
 */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "../../probe/probe.h"
#include "../../replay/rr_scan.h"

#define RR_SYS(n) {SYS_##n, #n}

static const struct {
	long nr;
	const char *name;
} rr_sys_names[] = {
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
static const long rr_sys_rec[] = {
	SYS_read, SYS_pread64, SYS_readv, SYS_recvfrom, SYS_recvmsg, SYS_accept, SYS_accept4,
	SYS_clock_gettime, SYS_gettimeofday, SYS_getrandom, SYS_getpid, SYS_gettid,
	SYS_nanosleep, SYS_clock_nanosleep, SYS_write, SYS_writev, SYS_sched_yield, SYS_ppoll,
	SYS_pselect6, SYS_epoll_pwait, SYS_rt_sigtimedwait, SYS_rt_sigsuspend, SYS_epoll_pwait2,
	SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_shutdown,
	SYS_setsockopt, SYS_getsockopt, SYS_getsockname, SYS_getpeername, SYS_recvmmsg,
	SYS_sendmmsg, SYS_sysinfo,
};

const char *rr_sys_name(long nr)
{
	for (size_t i = 0; i < sizeof(rr_sys_names) / sizeof(rr_sys_names[0]); i++)
		if (rr_sys_names[i].nr == nr)
			return rr_sys_names[i].name;
	return NULL;
}

int rr_sys_recorded(long nr)
{
	for (size_t i = 0; i < sizeof(rr_sys_rec) / sizeof(rr_sys_rec[0]); i++)
		if (rr_sys_rec[i] == nr)
			return 1;
	return 0;
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

static const struct probe_sym *a64_scan_sym(const struct probe_module *m, uint64_t addr)
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

static void a64_scan_note(struct rr_scan *out, int cls, const struct probe_sym *s, uint64_t addr,
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
		const uint8_t *code;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type != SHT_PROGBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			continue;
		code = d->d_buf;
		/* Little-endian words at 4-byte aligned addresses. */
		for (uint64_t off = (4 - (sh.sh_addr & 3)) & 3; off + 4 <= d->d_size; off += 4) {
			uint32_t w = (uint32_t)code[off] | (uint32_t)code[off + 1] << 8 |
				     (uint32_t)code[off + 2] << 16 | (uint32_t)code[off + 3] << 24;
			const char *text;
			int cls = a64_scan_class(w, &text);

			if (cls >= 0)
				a64_scan_note(out, cls, a64_scan_sym(&m, sh.sh_addr + off),
					      sh.sh_addr + off, text);
		}
	}
out_close:
	probe_module_close(&m);
	return rc < 0 ? rc : 0;
}
