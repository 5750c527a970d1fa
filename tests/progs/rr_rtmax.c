// SPDX-License-Identifier: MIT
/*
 * rr_rtmax.c - a program that uses SIGRTMAX itself, the signal spool's
 * SIGEV_THREAD notifiers wait for in sync mode (src/agent/
 * agent_rr_sevthread.c), for tests/integ/377-rr-rtmax.t.
 *
 * usage: rr_rtmax HOW
 *   handler  a SA_SIGINFO handler of SIGRTMAX; main prints "ready", then
 *            waits in sigsuspend until the handler ran twice (the test
 *            sends SIGRTMAX from outside until the program ends): a
 *            replay must run it where the recording did;
 *   sigwait  every thread blocks SIGRTMAX; main prints "ready", accepts two
 *            from outside with sigwaitinfo, then ignores late ones and
 *            unblocks it;
 *   timer    a SIGEV_THREAD timer (2 ms period) runs while main sends
 *            itself SIGRTMAX three times with sigqueue and accepts each
 *            with sigtimedwait (5 s at most) 2 ms later; then the timer
 *            must still run (sync mode: the serial mode runs the timer's
 *            function outside the schedule, doc/record.md).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t handled;
static volatile int last_code;
static int ticks;

static void on_rtmax(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	last_code = si ? si->si_code : 99;
	handled++;
}

static void block_rtmax(int how)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGRTMAX);
	pthread_sigmask(how, &s, NULL);
}

static int by_handler(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_rtmax;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMAX, &sa, NULL);
	block_rtmax(SIG_BLOCK);
	printf("ready\n");
	fflush(stdout);
	sigemptyset(&none);
	while (handled < 2)
		sigsuspend(&none);
	printf("main: the handler ran %d times, last si_code %d\n", (int)handled, last_code);
	return 0;
}

static int by_sigwait(void)
{
	sigset_t s;
	siginfo_t si;

	block_rtmax(SIG_BLOCK);
	sigemptyset(&s);
	sigaddset(&s, SIGRTMAX);
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 2; i++) {
		int r = sigwaitinfo(&s, &si);

		printf("sigwaitinfo %d: %s, si_code %d\n", i,
		       r == SIGRTMAX ? "SIGRTMAX" : "something else", si.si_code);
	}
	/* late ones from outside: ignored from here on */
	signal(SIGRTMAX, SIG_IGN);
	block_rtmax(SIG_UNBLOCK);
	signal(SIGRTMAX, SIG_DFL);
	printf("unblocked, still running\n");
	return 0;
}

static void tick(union sigval v)
{
	(void)v;
	pthread_mutex_lock(&mu);
	ticks++;
	pthread_mutex_unlock(&mu);
}

static int now_ticks(void)
{
	int n;

	pthread_mutex_lock(&mu);
	n = ticks;
	pthread_mutex_unlock(&mu);
	return n;
}

static int by_timer(void)
{
	struct sigevent sev;
	struct itimerspec its = {{0, 2000000}, {0, 2000000}};
	struct timespec wait5 = {5, 0}, ms = {0, 1000000};
	timer_t id;
	sigset_t s;
	int before, i;

	block_rtmax(SIG_BLOCK);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = tick;
	if (timer_create(CLOCK_MONOTONIC, &sev, &id) || timer_settime(id, 0, &its, NULL)) {
		perror("timer");
		return 1;
	}
	sigemptyset(&s);
	sigaddset(&s, SIGRTMAX);
	for (i = 0; i < 3; i++) {
		union sigval v = {.sival_int = 100 + i};
		siginfo_t si;
		int r;

		sigqueue(getpid(), SIGRTMAX, v);
		/* busy elsewhere a moment: a thread already waiting for
		 * SIGRTMAX (spool's notifier) would take it meanwhile */
		nanosleep(&ms, NULL);
		nanosleep(&ms, NULL);
		memset(&si, 0, sizeof(si));
		r = sigtimedwait(&s, &si, &wait5);
		if (r == SIGRTMAX)
			printf("got my SIGRTMAX %d (si_code %d)\n", si.si_value.sival_int, si.si_code);
		else
			printf("no SIGRTMAX %d: %s\n", 100 + i, r < 0 ? strerror(errno) : "other");
	}
	before = now_ticks();
	for (i = 0; i < 2000 && now_ticks() < before + 3; i++)
		nanosleep(&ms, NULL);
	printf("the timer still runs: %d\n", now_ticks() >= before + 3);
	timer_delete(id);
	block_rtmax(SIG_UNBLOCK);
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(how, "handler"))
		return by_handler();
	if (!strcmp(how, "sigwait"))
		return by_sigwait();
	if (!strcmp(how, "timer"))
		return by_timer();
	fprintf(stderr, "usage: rr_rtmax handler|sigwait|timer\n");
	return 2;
}
