// SPDX-License-Identifier: MIT
/*
 * rr_onstack.c - SA_ONSTACK handlers of asynchronous signals, for
 * tests/integ/376-rr-onstack.t: under spool record and replay the agent
 * runs the program's handler itself, at a delivery point; it must run on
 * the alternate stack the thread set, as the kernel runs it.
 *
 * WHERE is where the alternate stack lives:
 *   heap    malloc'd;
 *   local   a local array of main, inside the thread's own stack (above
 *           live frames the agent's stack zeroing must not reach);
 *   disarm  malloc'd, with SS_AUTODISARM (disabled while the handler runs).
 * The main thread and then a second thread (its own alternate stack) each
 * get SIGUSR1 (SA_ONSTACK) by raise() and by kill(getpid()); SIGUSR2 has a
 * handler without SA_ONSTACK, which must run on the normal stack. Each
 * handler calls getpid and clock_gettime (recorded inputs, replayed from
 * the log while on the alternate stack) and notes where it ran; a line per
 * signal says so.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ALT_SIZE (64 * 1024)
#define SS_AUTODISARM_FLAG (1u << 31)

static __thread char *alt_lo;
static __thread volatile int h_on_alt, h_onstack_flag, h_disabled, h_ran;
static int disarm;

static void handler(int sig)
{
	char here;
	stack_t ss;
	struct timespec ts;

	h_ran = sig;
	h_on_alt = alt_lo && &here >= alt_lo && &here < alt_lo + ALT_SIZE;
	memset(&ss, 0, sizeof(ss));
	sigaltstack(NULL, &ss);
	h_onstack_flag = (ss.ss_flags & SS_ONSTACK) != 0;
	h_disabled = (ss.ss_flags & SS_DISABLE) != 0;
	(void)getpid();
	clock_gettime(CLOCK_MONOTONIC, &ts);
}

static void say(const char *who, const char *how, int sig)
{
	printf("%s %s %s: ran %d, on the alternate stack %d, SS_ONSTACK %d%s\n", who, how,
	       sig == SIGUSR1 ? "SIGUSR1 (SA_ONSTACK)" : "SIGUSR2 (no SA_ONSTACK)",
	       h_ran == sig, h_on_alt, h_onstack_flag,
	       disarm && sig == SIGUSR1 ? (h_disabled ? ", disabled while it ran" : ", not disabled while it ran")
		      : "");
	fflush(stdout);
	h_ran = h_on_alt = h_onstack_flag = h_disabled = 0;
}

static void set_alt(char *p)
{
	stack_t ss = {.ss_sp = p, .ss_size = ALT_SIZE, .ss_flags = disarm ? SS_AUTODISARM_FLAG : 0};

	alt_lo = p;
	if (sigaltstack(&ss, NULL) != 0) {
		perror("sigaltstack");
		exit(1);
	}
}

static void signals(const char *who)
{
	raise(SIGUSR1);
	say(who, "raise", SIGUSR1);
	kill(getpid(), SIGUSR1);
	say(who, "kill", SIGUSR1);
	raise(SIGUSR2);
	say(who, "raise", SIGUSR2);
}

static void *worker(void *arg __attribute__((unused)))
{
	sigset_t usr;

	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &usr, NULL);
	set_alt(malloc(ALT_SIZE));
	signals("thread");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *where = argc > 1 ? argv[1] : "heap";
	char local[ALT_SIZE] __attribute__((aligned(16)));
	struct sigaction sa;
	sigset_t usr;
	pthread_t th;

	disarm = !strcmp(where, "disarm");
	set_alt(!strcmp(where, "local") ? local : malloc(ALT_SIZE));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_flags = 0;
	sigaction(SIGUSR2, &sa, NULL);
	signals("main");
	/* kill(getpid()) must land on the thread: main blocks them meanwhile */
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr, NULL);
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	printf("done\n");
	return 0;
}
