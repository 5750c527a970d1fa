// SPDX-License-Identifier: MIT
/*
 * probe_step.c - threads that sit at the first bytes of a probed function
 * while spool probe -p attaches (tests/integ/170-probe-attach-step-mask.t).
 *
 *   probe_step MODE STOP
 *
 * Each of 3 threads (main and two more) calls step_nap in a loop until the
 * file STOP exists. step_nap's first instruction is a nanosleep system call
 * (5 ms), so a thread that spool stops is almost always inside the bytes a
 * jump probe at its entry replaces, and spool single-steps it out before it
 * patches. MODE says what the program does with SIGTRAP first:
 *   block  every thread installs a SIGTRAP handler and blocks SIGTRAP (with
 *          every other signal) itself
 *   ign    SIGTRAP ignored (SIG_IGN), not blocked
 * Prints "ready" once every thread naps, then, when STOP exists, one line
 * per thread: "mask ok" or "mask BAD" (its mask is the one it set) and
 * "trap ok" or "trap BAD" (SIGTRAP's disposition is the one it set), and
 * "naps ok" when every thread napped at least once.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * long step_nap(const struct timespec *ts): nanosleep(ts, NULL) by the
 * function's first instruction, with rax and rsi set by step_nap_call (not
 * the C ABI: the syscall must be the first instruction). The nops make the
 * entry long enough for a jump probe.
 */
__asm__(".text\n"
	".globl step_nap\n"
	".type step_nap, @function\n"
	"step_nap:\n"
	"\tsyscall\n"
	"\tnopl 0x0(%rax,%rax,1)\n"
	"\tnopl 0x0(%rax,%rax,1)\n"
	"\tret\n"
	".size step_nap, .-step_nap\n"
	".globl step_nap_call\n"
	".type step_nap_call, @function\n"
	"step_nap_call:\n"
	"\tmovl $35, %eax\n" /* SYS_nanosleep */
	"\txorl %esi, %esi\n"
	"\tcall step_nap\n"
	"\tret\n"
	".size step_nap_call, .-step_nap_call\n");
long step_nap_call(const struct timespec *ts);

#define NTHREADS 3

static const char *mode, *stop;
static volatile int napping;
static int ign;

static void on_trap(int sig)
{
	(void)sig;
}

struct result {
	int mask_ok, trap_ok;
	long naps;
};
static struct result results[NTHREADS];

/* The calling thread's SIGTRAP: blocked (with every other signal) and
 * handled, or left to the process's SIG_IGN. */
static void setup(void)
{
	struct sigaction sa;
	sigset_t all;

	if (ign)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

static void *run(void *arg)
{
	struct result *r = arg;
	struct timespec ts = {0, 5 * 1000 * 1000};
	struct sigaction back;
	sigset_t m;

	if (arg != &results[0]) {
		setup();
		__atomic_fetch_add(&napping, 1, __ATOMIC_SEQ_CST);
	}
	while (access(stop, F_OK)) {
		step_nap_call(&ts);
		r->naps++;
	}
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	r->mask_ok = ign ? !sigismember(&m, SIGTRAP)
			 : sigismember(&m, SIGTRAP) && sigismember(&m, SIGSEGV);
	sigaction(SIGTRAP, NULL, &back);
	r->trap_ok = ign ? back.sa_handler == SIG_IGN : back.sa_handler == on_trap;
	return NULL;
}

int main(int argc, char **argv)
{
	struct result *r = results;
	pthread_t th[NTHREADS];
	int naps_ok = 1;

	if (argc < 3)
		return 2;
	mode = argv[1];
	stop = argv[2];
	ign = !strcmp(mode, "ign");
	if (ign)
		signal(SIGTRAP, SIG_IGN);
	else if (strcmp(mode, "block"))
		return 2;
	setup();
	for (int i = 1; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, run, &r[i]))
			return 2;
	while (__atomic_load_n(&napping, __ATOMIC_SEQ_CST) < NTHREADS - 1)
		usleep(1000);
	printf("ready\n");
	fflush(stdout);
	run(&r[0]);
	for (int i = 1; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < NTHREADS; i++) {
		printf("thread %d: mask %s, trap %s\n", i, r[i].mask_ok ? "ok" : "BAD",
		       r[i].trap_ok ? "ok" : "BAD");
		if (r[i].naps < 1)
			naps_ok = 0;
	}
	printf("naps %s\n", naps_ok ? "ok" : "BAD");
	return 0;
}
