// SPDX-License-Identifier: MIT
/*
 * rr_overrun.c - timer_getoverrun is an input of record/replay: a POSIX
 * timer of 1 ms sends SIGUSR1, blocked, while the program sleeps 60 ms;
 * the program then accepts the one pending signal with sigwaitinfo and
 * prints timer_getoverrun's count of the expiries that signal stood for
 * (about 59). A replay prints the recorded count: its own timer's count
 * depends on how long its own sleep took (a replayed nanosleep does not
 * wait).
 *
 * usage: rr_overrun
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct sigevent sev = {0};
	struct itimerspec its = {{0, 1000000}, {0, 1000000}};
	struct timespec nap = {0, 60000000};
	siginfo_t si;
	sigset_t set;
	timer_t id;
	int over;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGUSR1;
	if (timer_create(CLOCK_MONOTONIC, &sev, &id) || timer_settime(id, 0, &its, NULL))
		return 1;
	nanosleep(&nap, NULL);
	if (sigwaitinfo(&set, &si) != SIGUSR1)
		return 2;
	over = timer_getoverrun(id);
	timer_delete(id);
	printf("signal %d code %s overrun %d\n", si.si_signo, si.si_code == SI_TIMER ? "timer" : "other",
	       over);
	return over > 0 ? 0 : 3;
}
