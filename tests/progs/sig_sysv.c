// SPDX-License-Identifier: MIT
/*
 * sig_sysv.c - a program that installs its SIGTRAP handlers with glibc's
 * other spellings of signal() after spool probe -p attached
 * (tests/integ/367): bsd_signal (a handler that stays) and __sysv_signal
 * (System V's one-shot: the disposition goes back to SIG_DFL when it
 * runs). glibc's own versions reach its sigaction without the PLT, so an
 * attach that redirects only `signal` and `sigaction` let them replace the
 * agent's SIGTRAP handler: the next int3 probe hit went to the program's
 * handler (bsd) or, after the one-shot ran, killed it (sysv).
 *
 *   sig_sysv GO
 * Prints "ready", waits for the file GO, then installs its handler with
 * bsd_signal, raises SIGTRAP 3 times around 300 calls of sig_i3 (int3
 * probes: a computed goto); installs a one-shot handler with
 * __sysv_signal, raises once, calls sig_i3 300 times again. Prints
 * "bsd N" (3), "sysv N" (1), "sums ok|BAD", "reset ok|BAD" (the one-shot
 * reset its disposition to SIG_DFL in the program's view).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

sighandler_t bsd_signal(int sig, sighandler_t h);
sighandler_t __sysv_signal(int sig, sighandler_t h);

static volatile sig_atomic_t bsd_n, sysv_n;

__attribute__((noipa)) long sig_i3(long x)
{
	static void *const lab[] = {&&even, &&odd};

	goto *lab[x & 1];
even:
	return x * 5;
odd:
	return x * 7;
}

static long calls(void)
{
	long bad = 0;

	for (long i = 0; i < 300; i++)
		bad += sig_i3(i) != ((i & 1) ? i * 7 : i * 5);
	return bad;
}

static void on_bsd(int sig)
{
	(void)sig;
	bsd_n++;
}

static void on_sysv(int sig)
{
	(void)sig;
	sysv_n++;
}

int main(int argc, char **argv)
{
	struct sigaction now;
	long bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: sig_sysv GO\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(10000);
	if (bsd_signal(SIGTRAP, on_bsd) == SIG_ERR)
		return 1;
	for (int r = 0; r < 3; r++) {
		bad += calls();
		raise(SIGTRAP);
	}
	if (__sysv_signal(SIGTRAP, on_sysv) == SIG_ERR)
		return 1;
	raise(SIGTRAP);
	bad += calls();
	memset(&now, 0, sizeof(now));
	sigaction(SIGTRAP, NULL, &now);
	printf("bsd %d\nsysv %d\nsums %s\nreset %s\n", (int)bsd_n, (int)sysv_n, bad ? "BAD" : "ok",
	       now.sa_handler == SIG_DFL ? "ok" : "BAD");
	return 0;
}
