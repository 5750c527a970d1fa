// SPDX-License-Identifier: MIT
/*
 * fault_spin.c - a program that takes its own SIGSEGV all the time, for
 * spool probe -p's attach (tests/integ/299-attach-held-fault.t): its main
 * thread protects a page, reads it (its handler checks the fault's address
 * is on that page, then unprotects it) and calls spin_leaf, in a loop
 * without a pause, so an attach often finds it with its SIGSEGV about to
 * be delivered, a signal spool holds back while it calls into the thread.
 *
 *   fault_spin STOP
 *
 * Prints "ready", runs until the file STOP exists, then prints "faults ok"
 * (each round's fault ran the handler once) or "faults BAD", and "sums
 * ok|BAD". A fault its handler finds elsewhere than on its page (a
 * SIGSEGV with another address: not the program's) ends it with status 70
 * and says where on stderr.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *fs_page;
static long fs_pagesz;
static volatile long fs_faults;

__attribute__((noinline)) long spin_leaf(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

static void fs_segv(int sig, siginfo_t *si, void *uc)
{
	char msg[96];
	int n;

	(void)sig;
	(void)uc;
	if ((char *)si->si_addr < fs_page || (char *)si->si_addr >= fs_page + fs_pagesz) {
		n = snprintf(msg, sizeof(msg), "fault_spin: a SIGSEGV at %p, code %d, not ours\n",
			     si->si_addr, si->si_code);
		if (n > 0)
			(void)!write(2, msg, (size_t)n);
		_exit(70);
	}
	fs_faults++;
	mprotect(fs_page, (size_t)fs_pagesz, PROT_READ | PROT_WRITE);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long rounds = 0, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fault_spin STOP\n");
		return 2;
	}
	fs_pagesz = sysconf(_SC_PAGESIZE);
	fs_page = mmap(NULL, (size_t)fs_pagesz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fs_page == MAP_FAILED)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fs_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while ((rounds & 1023) || access(argv[1], F_OK) != 0) {
		mprotect(fs_page, (size_t)fs_pagesz, PROT_NONE);
		bad += *(volatile char *)fs_page; /* SIGSEGV: the handler unprotects */
		bad += spin_leaf(rounds) != rounds * 3 + 1;
		rounds++;
	}
	printf("faults %s\n", fs_faults == rounds ? "ok" : "BAD");
	printf("sums %s\n", bad ? "BAD" : "ok");
	return 0;
}
