// SPDX-License-Identifier: MIT
/*
 * rr_sigwait.c - a server's signal thread, for tests/integ/96-sigwait.t:
 * every thread blocks SIGUSR1, SIGUSR2, SIGRTMIN and SIGALRM; one thread
 * accepts them without a handler while two workers count under a mutex.
 *
 * Worker 0 sends the process SIGUSR2 with kill() at its round 20, worker 1
 * queues SIGRTMIN with the value 42 to the signal thread with
 * pthread_sigqueue() at its round 30. SIGUSR1 comes from outside (the
 * test). The signal thread prints the shared count at each signal, which
 * depends on how the threads ran, so a replay must give the same; it stops
 * the workers once it has had WANT SIGUSR1 and the signals of the workers.
 * At the end the main thread ignores SIGUSR1 (late ones from outside) and
 * unblocks the three others: a SIGUSR2 left pending would kill it (in a
 * replay, where the waits do not take the real signals from the kernel).
 * Its first line says whether kill(getpid(), 0) reached this process.
 *
 * HOW is how the signal thread waits:
 *   sigwait, sigwaitinfo, sigtimedwait (20 ms timeouts, counted);
 *   signalfd (a blocking read of a signalfd);
 *   ppoll, pselect, epoll_pwait, epoll_pwait2 (20 ms timeouts, counted, then
 *   a read of the signalfd). These four pass a mask that unblocks SIGALRM, which has
 *   a handler: worker 0 also sends the process SIGALRM at its round 25,
 *   which only the waiting call can take; the handler sets a flag and the
 *   call returns EINTR;
 *   syscall-ppoll, syscall-pselect6, syscall-epoll_pwait: the same through
 *   glibc's syscall();
 *   syscall: rt_sigtimedwait through glibc's syscall() (20 ms timeouts);
 *   asm: rt_sigtimedwait with the program's own syscall instruction.
 *
 * usage: rr_sigwait HOW [WANT]   (default WANT 2; WANT 0: no outside signal)
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum {
	W_SIGWAIT,
	W_INFO,
	W_TIMED,
	W_SIGNALFD,
	W_PPOLL,
	W_PSELECT,
	W_EPOLL,
	W_EPOLL2,
	W_RAW_PPOLL,
	W_RAW_PSELECT,
	W_RAW_EPOLL,
	W_SYSCALL,
	W_ASM
};
static const char *const how_names[] = {"sigwait",     "sigwaitinfo",  "sigtimedwait",
					"signalfd",    "ppoll",	       "pselect",
					"epoll_pwait", "epoll_pwait2", "syscall-ppoll",
					"syscall-pselect6", "syscall-epoll_pwait", "syscall",
					"asm"};
#define USES_SIGNALFD(h) ((h) >= W_SIGNALFD && (h) <= W_RAW_EPOLL)
#define USES_ALARM(h) ((h) >= W_PPOLL && (h) <= W_RAW_EPOLL)
#define COUNTS_TIMEOUTS(h) ((h) != W_SIGWAIT && (h) != W_INFO && (h) != W_SIGNALFD)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int count, stop;
static pthread_t sig_thread;
static volatile sig_atomic_t alarmed;
static int how;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

static int get_count(void)
{
	int c;

	pthread_mutex_lock(&lock);
	c = count;
	pthread_mutex_unlock(&lock);
	return c;
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;

	for (int round = 1;; round++) {
		pthread_mutex_lock(&lock);
		if (stop) {
			pthread_mutex_unlock(&lock);
			break;
		}
		count++;
		pthread_mutex_unlock(&lock);
		if (me == 0 && round == 20)
			kill(getpid(), SIGUSR2);
		if (me == 0 && round == 25 && USES_ALARM(how))
			kill(getpid(), SIGALRM);
		if (me == 1 && round == 30) {
			union sigval v = {.sival_int = 42};

			pthread_sigqueue(sig_thread, SIGRTMIN, v);
		}
		usleep(1000 + 500 * me);
	}
	return NULL;
}

/* Wait for readiness of the signalfd with the call of HOW (timeouts of
 * 20 ms counted, the mask unblocks SIGALRM); 1 when it is readable. */
static int wait_ready(int sfd, int ep, const sigset_t *mask, int *timeouts)
{
	int r;

	if (how == W_PPOLL || how == W_RAW_PPOLL) {
		struct pollfd p = {.fd = sfd, .events = POLLIN};
		struct timespec ts = {0, 20000000};

		if (how == W_PPOLL)
			r = ppoll(&p, 1, &ts, mask);
		else
			r = (int)syscall(SYS_ppoll, &p, 1, &ts, mask, _NSIG / 8);
	} else if (how == W_PSELECT || how == W_RAW_PSELECT) {
		fd_set rd;
		struct timespec ts = {0, 20000000};
		struct {
			const sigset_t *ss;
			size_t len;
		} data = {mask, _NSIG / 8};

		FD_ZERO(&rd);
		FD_SET(sfd, &rd);
		if (how == W_PSELECT)
			r = pselect(sfd + 1, &rd, NULL, NULL, &ts, mask);
		else
			r = (int)syscall(SYS_pselect6, sfd + 1, &rd, NULL, NULL, &ts, &data);
		if (r > 0 && !FD_ISSET(sfd, &rd))
			r = -2;
	} else {
		struct epoll_event ev;
		struct timespec ts = {0, 20000000};

		if (how == W_EPOLL2)
			r = epoll_pwait2(ep, &ev, 1, &ts, mask);
		else if (how == W_RAW_EPOLL)
			r = (int)syscall(SYS_epoll_pwait, ep, &ev, 1, 20, mask, _NSIG / 8);
		else
			r = epoll_pwait(ep, &ev, 1, 20, mask);
		if (r > 0 && ev.data.fd != sfd)
			r = -2;
	}
	if (r == 0)
		(*timeouts)++;
	if (r < 0 && errno == EINTR && alarmed == 1) {
		alarmed = 2;
		printf("alarm handler ran, the wait returned EINTR, at count %d\n", get_count());
	}
	return r > 0;
}

/* rt_sigtimedwait with this program's own syscall instruction. */
static int raw_sigtimedwait(const sigset_t *set, siginfo_t *si, const struct timespec *ts)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = _NSIG / 8;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"((long)SYS_rt_sigtimedwait), "D"(set), "S"(si), "d"(ts), "r"(r10)
			 : "rcx", "r11", "memory");
#else
	r = syscall(SYS_rt_sigtimedwait, set, si, ts, _NSIG / 8);
	if (r < 0)
		r = -errno;
#endif
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

/* The next signal, its code and value; 0 after a timeout or an interrupt. */
static int next_signal(const sigset_t *set, int sfd, int ep, const sigset_t *mask, int *code,
		       int *value, int *self, int *timeouts)
{
	siginfo_t si;
	struct timespec ts = {0, 20000000};
	int sig;

	*code = *value = *self = -1;
	switch (how) {
	case W_SIGWAIT:
		if (sigwait(set, &sig))
			return -1;
		return sig;
	case W_INFO:
	case W_TIMED:
	case W_SYSCALL:
	case W_ASM:
		if (how == W_INFO)
			sig = sigwaitinfo(set, &si);
		else if (how == W_TIMED)
			sig = sigtimedwait(set, &si, &ts);
		else if (how == W_SYSCALL)
			sig = (int)syscall(SYS_rt_sigtimedwait, set, &si, &ts, _NSIG / 8);
		else
			sig = raw_sigtimedwait(set, &si, &ts);
		if (sig < 0) {
			if (errno == EAGAIN) {
				(*timeouts)++;
				return 0;
			}
			return errno == EINTR ? 0 : -1;
		}
		*code = si.si_code;
		*value = si.si_value.sival_int;
		*self = si.si_pid == getpid();
		return sig;
	default: {
		struct signalfd_siginfo fi;
		ssize_t n;

		if (how != W_SIGNALFD && !wait_ready(sfd, ep, mask, timeouts))
			return 0;
		n = read(sfd, &fi, sizeof(fi));
		if (n != (ssize_t)sizeof(fi))
			return -1;
		*code = fi.ssi_code;
		*value = fi.ssi_int;
		*self = (pid_t)fi.ssi_pid == getpid();
		return (int)fi.ssi_signo;
	}
	}
}

static void *signal_main(void *arg)
{
	int want = (int)(long)arg, usr1 = 0, usr2 = 0, rt = 0, timeouts = 0;
	int sfd = -1, ep = -1;
	sigset_t set, mask;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	sigdelset(&mask, SIGALRM);
	if (USES_SIGNALFD(how)) {
		sfd = signalfd(-1, &set, SFD_CLOEXEC);
		if (sfd < 0) {
			perror("signalfd");
			exit(2);
		}
	}
	if (how == W_EPOLL || how == W_EPOLL2 || how == W_RAW_EPOLL) {
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = sfd};

		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) < 0) {
			perror("epoll");
			exit(2);
		}
	}
	while (usr1 < want || !usr2 || !rt || (USES_ALARM(how) && alarmed != 2)) {
		int code, value, self;
		int sig = next_signal(&set, sfd, ep, &mask, &code, &value, &self, &timeouts);

		if (sig < 0) {
			perror("waiting for a signal");
			exit(2);
		}
		if (!sig)
			continue;
		if (sig == SIGUSR1)
			printf("SIGUSR1 %d at count %d\n", ++usr1, get_count());
		else if (sig == SIGUSR2)
			printf("SIGUSR2 %d (code %d, from this process %d) at count %d\n", ++usr2,
			       code, self, get_count());
		else if (sig == SIGRTMIN)
			printf("SIGRTMIN %d (code %d, value %d) at count %d\n", ++rt, code, value,
			       get_count());
		fflush(stdout);
	}
	pthread_mutex_lock(&lock);
	stop = 1;
	pthread_mutex_unlock(&lock);
	if (COUNTS_TIMEOUTS(how))
		printf("timeouts %d\n", timeouts);
	return NULL;
}

int main(int argc, char **argv)
{
	int want = argc > 2 ? atoi(argv[2]) : 2;
	struct sigaction sa;
	pthread_t w[2];
	sigset_t block;

	how = -1;
	for (int i = 0; argc > 1 && i < (int)(sizeof(how_names) / sizeof(how_names[0])); i++)
		if (!strcmp(argv[1], how_names[i]))
			how = i;
	if (how < 0 || want < 0) {
		fprintf(stderr, "usage: rr_sigwait sigwait|sigwaitinfo|sigtimedwait|signalfd|"
				"ppoll|pselect|epoll_pwait|epoll_pwait2|syscall-ppoll|"
				"syscall-pselect6|syscall-epoll_pwait|syscall|asm [WANT]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGRTMIN);
	sigaddset(&block, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	/* Under a replay getpid gives the recorded pid: this process still. */
	printf("ready %s, kill(getpid(), 0) = %d\n", how_names[how], kill(getpid(), 0));
	fflush(stdout);
	if (pthread_create(&sig_thread, NULL, signal_main, (void *)(long)want))
		return 2;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)i))
			return 2;
	pthread_join(sig_thread, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	printf("total %d\n", count);
	fflush(stdout);
	signal(SIGUSR1, SIG_IGN);
	sigdelset(&block, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &block, NULL);
	printf("unblocked, still running\n");
	return 0;
}
