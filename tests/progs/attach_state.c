// SPDX-License-Identifier: MIT
/*
 * attach_state.c - target of tests/arm64/276-a64-attach.t: a program that
 * shows whether spool probe -p changed anything of its state while it
 * attached, probed and detached. Until STOPFILE appears (or SECONDS pass):
 *   - two threads call attach_step() about once per 200 us each and check
 *     every result against the closed form (a probe that disturbed a
 *     register would show);
 *   - the main thread does a floating-point loop whose values stay in
 *     vector registers (no call inside), then sleeps, round after round,
 *     and checks each round's result against the first round's: spool's
 *     calls into the main thread (dlopen, the agent's entry points) must
 *     give back every vector register, wherever it was stopped;
 *   - a reader thread blocks in read() on a pipe the main thread writes a
 *     counter byte into every round: the read spool interrupts must be
 *     restarted, neither fail (EINTR) nor lose or repeat a byte;
 *   - the checksum of its own code (every executable PT_LOAD of the
 *     program), taken before "ready" and again at the end: the detach must
 *     put every byte back.
 * It prints "ready" once running, "t N" every 10 rounds, and at the end
 * "done calls N check ok|BAD fp ok|BAD read ok|BAD code same|CHANGED",
 * exit status 0 when all hold. With "trapblock", one of the two threads
 * blocks SIGTRAP for its whole life (a trap probe hit there would kill the
 * process: spool must leave such probes out). With "latetrap GOFILE", once
 * GOFILE appears (spool attached meanwhile) one of the two threads blocks
 * SIGTRAP with pthread_sigmask and the other every signal with
 * sigprocmask, and the main thread sets a SIGTRAP handler and raises it;
 * they print "late blocked" then, and at their end "late trap blocked
 * yes|no" (as each thread's mask says) and "late handler N" (the times it
 * ran: 1).
 *
 *   attach_state SECONDS [STOPFILE [trapblock | latetrap GOFILE]]
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long n_calls;
static volatile int stop;
static int pipe_fd[2];
static long read_bad, reads;
static int trap_block;
static const char *late_go; /* latetrap: the file that says spool attached */
static volatile int late_handled;

static void late_handler(int sig)
{
	(void)sig;
	late_handled++;
}

/* latetrap: thread k blocks SIGTRAP (k 3: pthread_sigmask) or every
 * signal (k 4: sigprocmask) once late_go exists; 0 until then, 1 after. */
static int late_block(long k)
{
	sigset_t t;

	if (access(late_go, F_OK))
		return 0;
	sigemptyset(&t);
	if (k == 3) {
		sigaddset(&t, SIGTRAP);
		pthread_sigmask(SIG_BLOCK, &t, NULL);
	} else {
		sigfillset(&t);
		sigprocmask(SIG_BLOCK, &t, NULL);
	}
	printf("late blocked %ld\n", k);
	return 1;
}

__attribute__((noinline)) long attach_step(long x, long y)
{
	__atomic_fetch_add(&n_calls, 1, __ATOMIC_RELAXED);
	return x * 5 + y;
}

static void *state_loop(void *arg)
{
	struct timespec nap = {0, 200 * 1000};
	long bad = 0, k = (long)(intptr_t)arg;
	int late = 0;

	if (trap_block && k == 3) {
		sigset_t t;

		sigemptyset(&t);
		sigaddset(&t, SIGTRAP);
		pthread_sigmask(SIG_BLOCK, &t, NULL);
	}
	for (long i = 0; !stop; i++) {
		if (attach_step(i, k) != i * 5 + k)
			bad++;
		if (late_go && !late && i % 64 == 0)
			late = late_block(k);
		nanosleep(&nap, NULL);
	}
	if (late) {
		sigset_t cur;

		pthread_sigmask(SIG_BLOCK, NULL, &cur);
		printf("late trap blocked %s\n", sigismember(&cur, SIGTRAP) ? "yes" : "no");
	}
	return (void *)bad;
}

/* Reads the counter bytes the main thread writes; a failed read or a byte
 * out of sequence is counted bad. Ends at EOF. */
static void *state_reader(void *arg)
{
	unsigned char want = 0, b;

	(void)arg;
	for (;;) {
		ssize_t n = read(pipe_fd[0], &b, 1);

		if (n == 0)
			break;
		if (n != 1 || b != want) {
			read_bad++;
			if (n < 0 && errno != EINTR)
				break;
			if (n != 1)
				continue;
		}
		want = (unsigned char)(b + 1);
		reads++;
	}
	return NULL;
}

/* The floating-point round: no call inside, so its values live in vector
 * registers the whole time; it reads a volatile, so the compiler cannot
 * take it for a constant and compute it once. */
static volatile double fp_seed = 1.0; /* read each round: not a constant */

__attribute__((noinline)) static double state_fp_round(void)
{
	double x = fp_seed, y = 0.5, z = 0.25;

	for (long i = 0; i < 2000000; i++) {
		x = x * 1.0000001 + 1e-9;
		y = y * 0.9999999 + x * 1e-12;
		z = z + y * 1e-7;
	}
	return x + y * 3 + z * 7;
}

struct state_text {
	uint64_t sum;
};

static int state_text_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct state_text *t = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (size_t k = 0; k < ph->p_filesz; k++)
			t->sum = t->sum * 131 + p[k];
	}
	return 1; /* the first object is the program */
}

static uint64_t state_text_sum(void)
{
	struct state_text t = {0};

	dl_iterate_phdr(state_text_cb, &t);
	return t.sum;
}

static long state_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long secs = argc > 1 ? atol(argv[1]) : 3, end, bad = 0, fp_bad = 0, round = 0;
	const char *stop_file = argc > 2 ? argv[2] : NULL;
	uint64_t text = state_text_sum();
	double first = state_fp_round();
	pthread_t th[2], rd;
	unsigned char ctr = 0;
	int late_raised = 0;
	void *r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	trap_block = argc > 3 && !strcmp(argv[3], "trapblock");
	if (argc > 4 && !strcmp(argv[3], "latetrap"))
		late_go = argv[4];
	if (pipe(pipe_fd) || pthread_create(&rd, NULL, state_reader, NULL))
		return 2;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, state_loop, (void *)(intptr_t)(i + 3)))
			return 2;
	printf("ready\n");
	end = state_now_ms() + secs * 1000;
	/* the stop file looked for now and then: on a slow file system (9p
	 * in the VM) the look would be where the thread spends its time */
	while (state_now_ms() < end && !(stop_file && round % 10 == 0 && access(stop_file, F_OK) == 0)) {
		struct timespec tick = {0, 2 * 1000 * 1000};

		if (state_fp_round() != first)
			fp_bad++;
		if (attach_step(round, 1) != round * 5 + 1)
			bad++;
		if (write(pipe_fd[1], &ctr, 1) == 1)
			ctr++;
		/* now and then: a write to a slow file (9p in the VM) would
		 * keep the thread in the kernel most of the time */
		if (round % 10 == 0)
			printf("t %ld\n", round);
		if (late_go && !late_raised && round % 10 == 0 && !access(late_go, F_OK)) {
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = late_handler;
			sigaction(SIGTRAP, &sa, NULL);
			raise(SIGTRAP);
			late_raised = 1;
		}
		round++;
		nanosleep(&tick, NULL);
	}
	stop = 1;
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], &r);
		bad += (long)r;
	}
	close(pipe_fd[1]);
	pthread_join(rd, NULL);
	if (late_go)
		printf("late handler %d\n", late_handled);
	printf("done calls %ld check %s fp %s read %s code %s\n", n_calls, bad ? "BAD" : "ok",
	       fp_bad ? "BAD" : "ok", read_bad || reads != (long)round ? "BAD" : "ok",
	       state_text_sum() == text ? "same" : "CHANGED");
	return bad || fp_bad || read_bad || reads != (long)round || state_text_sum() != text;
}
