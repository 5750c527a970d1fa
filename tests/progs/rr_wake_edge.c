// SPDX-License-Identifier: MIT
/*
 * rr_wake_edge.c - wake-ups through a descriptor that come from no write
 * (doc/record.md "Wake-ups through a descriptor"): a worker stores a
 * result with an atomic store (no lock), then makes the loop's descriptor
 * ready without writing to it; the loop waits with poll, consumes the
 * readiness, takes the result with an atomic exchange and prints it, then
 * answers on a pipe before the worker's next round. Only the readiness
 * orders the store before the exchange, so a sync replay that does not
 * make it an ordering edge prints 0 for a result (or stops at a
 * divergence).
 *
 *   close:    the worker closes its end of a pipe (the loop reads 0)
 *   shutdown: the worker shuts its end of a socket pair down
 *   connect:  the worker connects to the loop's listening socket
 *   timer:    the worker arms the loop's timerfd (1 ms)
 *   fclose:   the worker fcloses a FILE on its end of a pipe (the loop
 *             reads 0)
 *   signalfd: the worker sends SIGUSR1 to the process (blocked in every
 *             thread); the loop polls a signalfd and reads it
 *   itimer:   the worker arms a 1 ms setitimer (SIGALRM, blocked); the
 *             loop takes it with sigwait
 *   ualarm:   the same with ualarm
 *   ptimer:   the worker arms a 1 ms POSIX timer (timer_create, SIGUSR2,
 *             blocked); the loop polls a signalfd and reads it
 *   far:      the worker writes to a pipe, as thread 131 or so (130
 *             threads made and joined first), while another thread writes
 *             to /dev/null 300 times a round (its writes make up the
 *             process's count: only the far worker's own count orders the
 *             store)
 *
 *   rr_wake_edge close|shutdown|connect|timer|far|fclose|signalfd|itimer|ualarm|ptimer
 *                ROUNDS
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static const char *mode;
static unsigned long slot;
static int rounds, ack[2], lfd = -1, tfd = -1, far_wr = -1;
static struct sockaddr_in addr;
static timer_t ptimer;

static unsigned long spin(unsigned long v)
{
	for (int i = 0; i < 20000; i++)
		v = v * 6364136223846793005ul + 1442695040888963407ul;
	return v;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < rounds; r++) {
		unsigned long v = 100000ul + (unsigned long)r;
		int fd = -1;

		/* the loop's answer: the descriptor to make ready this round */
		if (read(ack[0], &fd, sizeof(fd)) != sizeof(fd))
			abort();
		if (!strcmp(mode, "connect") && (fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
			abort();
		if (spin(v) == 42)
			v++; /* (never: keeps the work) */
		__atomic_store_n(&slot, v, __ATOMIC_RELEASE);
		if (!strcmp(mode, "close") && close(fd))
			abort();
		if (!strcmp(mode, "fclose")) {
			FILE *f = fdopen(fd, "w");

			if (!f || fclose(f))
				abort();
		}
		if (!strcmp(mode, "signalfd") && kill(getpid(), SIGUSR1))
			abort();
		if (!strcmp(mode, "itimer")) {
			struct itimerval it = {{0, 0}, {0, 1000}};

			if (setitimer(ITIMER_REAL, &it, NULL))
				abort();
		}
		if (!strcmp(mode, "ualarm"))
			ualarm(1000, 0);
		if (!strcmp(mode, "ptimer")) {
			struct itimerspec its = {{0, 0}, {0, 1000000}};

			if (timer_settime(ptimer, 0, &its, NULL))
				abort();
		}
		if (!strcmp(mode, "shutdown") && shutdown(fd, SHUT_WR))
			abort();
		if (!strcmp(mode, "connect")) {
			if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
				abort();
			close(fd);
		}
		if (!strcmp(mode, "timer")) {
			struct itimerspec its = {{0, 0}, {0, 1000000}};

			if (timerfd_settime(tfd, 0, &its, NULL))
				abort();
		}
		if (!strcmp(mode, "far") && write(far_wr, "f", 1) != 1)
			abort();
	}
	return NULL;
}

static void *noise(void *arg)
{
	int fd = open("/dev/null", O_WRONLY);

	(void)arg;
	for (int i = 0; i < 300 * rounds; i++)
		if (write(fd, "n", 1) != 1)
			abort();
	close(fd);
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th, nt;
	int p[2] = {-1, -1}, s[2], far_rd = -1;
	unsigned long sum = 0;
	socklen_t al = sizeof(addr);

	if (argc != 3) {
		fprintf(stderr, "usage: rr_wake_edge close|shutdown|connect|timer|far|fclose|"
				"signalfd|itimer|ualarm|ptimer ROUNDS\n");
		return 2;
	}
	mode = argv[1];
	rounds = atoi(argv[2]);
	if (pipe(ack))
		return 1;
	if (!strcmp(mode, "connect")) {
		addr = (struct sockaddr_in){.sin_family = AF_INET,
					    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 8) ||
		    getsockname(lfd, (struct sockaddr *)&addr, &al))
			return 1;
	}
	if (!strcmp(mode, "timer") && (tfd = timerfd_create(CLOCK_MONOTONIC, 0)) < 0)
		return 1;
	/* the signals: blocked in every thread (the worker inherits the mask),
	 * taken by the loop from a signalfd or with sigwait */
	if (!strcmp(mode, "signalfd") || !strcmp(mode, "itimer") || !strcmp(mode, "ualarm") ||
	    !strcmp(mode, "ptimer")) {
		int sig = mode[0] == 's' ? SIGUSR1 : mode[0] == 'p' ? SIGUSR2 : SIGALRM;
		struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2};
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, sig);
		if (pthread_sigmask(SIG_BLOCK, &set, NULL))
			return 1;
		if (sig != SIGALRM && (tfd = signalfd(-1, &set, 0)) < 0)
			return 1;
		if (sig == SIGUSR2 && timer_create(CLOCK_MONOTONIC, &sev, &ptimer))
			return 1;
	}
	if (!strcmp(mode, "far")) {
		for (int i = 0; i < 130; i++)
			if (pthread_create(&nt, NULL, nothing, NULL) || pthread_join(nt, NULL))
				return 1;
		if (pipe(p))
			return 1;
		far_rd = p[0], far_wr = p[1];
		if (pthread_create(&nt, NULL, noise, NULL))
			return 1;
	}
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	for (int r = 0; r < rounds; r++) {
		struct pollfd pf = {.fd = -1, .events = POLLIN};
		int give = -1, rd = -1;
		unsigned long v;
		char buf[8];

		if (!strcmp(mode, "close") || !strcmp(mode, "fclose")) {
			if (pipe(p))
				return 1;
			rd = p[0], give = p[1];
		} else if (!strcmp(mode, "signalfd") || !strcmp(mode, "itimer") ||
			   !strcmp(mode, "ualarm") || !strcmp(mode, "ptimer")) {
			rd = tfd;
		} else if (!strcmp(mode, "shutdown")) {
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, s))
				return 1;
			rd = s[0], give = s[1];
		} else if (!strcmp(mode, "connect")) {
			rd = lfd;
		} else if (!strcmp(mode, "timer")) {
			rd = tfd;
		} else {
			rd = far_rd;
		}
		if (write(ack[1], &give, sizeof(give)) != sizeof(give))
			return 1;
		pf.fd = rd;
		if (!strcmp(mode, "itimer") || !strcmp(mode, "ualarm")) {
			sigset_t set;
			int sig;

			sigemptyset(&set);
			sigaddset(&set, SIGALRM);
			if (sigwait(&set, &sig) || sig != SIGALRM)
				return 1;
		} else {
			while (poll(&pf, 1, -1) != 1)
				;
		}
		if (!strcmp(mode, "itimer") || !strcmp(mode, "ualarm")) {
			/* (taken above) */
		} else if (!strcmp(mode, "signalfd") || !strcmp(mode, "ptimer")) {
			struct signalfd_siginfo si;

			if (read(rd, &si, sizeof(si)) != sizeof(si))
				return 1;
		} else if (!strcmp(mode, "connect")) {
			int c = accept(lfd, NULL, NULL);

			if (c < 0)
				return 1;
			close(c);
		} else if (read(rd, buf, sizeof(buf)) < 0) {
			return 1;
		}
		v = __atomic_exchange_n(&slot, 0, __ATOMIC_ACQ_REL);
		printf("round %d: %lu\n", r, v);
		if (!strcmp(mode, "close") || !strcmp(mode, "fclose"))
			close(rd);
		if (!strcmp(mode, "shutdown"))
			close(rd), close(give);
		sum += v;
	}
	pthread_join(th, NULL);
	if (!strcmp(mode, "far"))
		pthread_join(nt, NULL);
	printf("sum %lu\n", sum);
	return 0;
}
