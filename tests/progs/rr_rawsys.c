// SPDX-License-Identifier: MIT
/*
 * rr_rawsys.c - system calls made with the program's own `syscall`
 * instruction (inline assembly), not through libc: spool record must catch
 * them through syscall user dispatch, record the inputs like the named
 * calls (a replay prints the recorded values even after the file changed),
 * and keep the calls it cannot emulate in a signal handler working.
 *
 *   rr_rawsys FILE           getrandom, read of FILE, clock_gettime, getpid,
 *                            all raw; prints the values
 *   rr_rawsys --getpid N     N raw getpid calls (bench/record.sh)
 *   rr_rawsys --fork PROG..  raw fork, the child raw-execs PROG; prints its status
 *   rr_rawsys --vfork PROG.. the same with a raw vfork
 *   rr_rawsys --thread       raw clone of a thread on its own stack, which
 *                            writes a line and exits (raw)
 *   rr_rawsys --sigreturn    a SIGUSR1 handler installed with a raw
 *                            rt_sigaction and its own restorer (raw
 *                            rt_sigreturn), as Go's runtime does
 *   rr_rawsys --sigsys-dfl   resets SIGSYS to its default (libc signal() and a
 *                            raw rt_sigaction), then makes a raw call
 *   rr_rawsys --tsc          reads the time stamp counter (rdtsc), which
 *                            no trap catches: spool record finds it in the
 *                            executable and warns
 *   rr_rawsys --sigaltstack  sets its alternate signal stack with a raw
 *                            sigaltstack, as Go's runtime does for each of
 *                            its threads, reads it back, takes a signal on
 *                            it, then disables it (raw) and takes one off it
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "raw_sys.h"

extern char **environ;

/* raw_sys (raw_sys.h): a system call of the program's own instruction */
static long raw3(long n, long a, long b, long c)
{
	return raw_sys(n, a, b, c, 0);
}

/*
 * long rawsys_vfork_exec(path, argv, envp): vfork; the child execve()s
 * (rdi, rsi, rdx survive the system call) or exits 127. Assembly: a vfork
 * child must not touch the stack it shares with its parent.
 * long rawsys_thread(flags, stack, ctid): clone; the child, on its own
 * stack, writes rawsys_msg and exits.
 * rawsys_restorer: rt_sigreturn.
 */
long rawsys_vfork_exec(const char *path, char *const *argv, char *const *envp);
long rawsys_thread(unsigned long flags, void *stack, int *ctid);
void rawsys_restorer(void);
__asm__(".text\n"
	".globl rawsys_vfork_exec\n"
	".type rawsys_vfork_exec, @function\n"
	"rawsys_vfork_exec:\n"
	"	mov $58, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	mov $59, %eax\n"
	"	syscall\n"
	"	mov $127, %edi\n"
	"	mov $60, %eax\n"
	"	syscall\n"
	"1:	ret\n"
	".size rawsys_vfork_exec, .-rawsys_vfork_exec\n"
	".globl rawsys_thread\n"
	".type rawsys_thread, @function\n"
	"rawsys_thread:\n"
	"	mov %rdx, %r10\n"
	"	xor %edx, %edx\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jz 2f\n"
	"	ret\n"
	"2:	mov $1, %edi\n"
	"	lea rawsys_msg(%rip), %rsi\n"
	"	mov $22, %edx\n"
	"	mov $1, %eax\n"
	"	syscall\n"
	"	xor %edi, %edi\n"
	"	mov $60, %eax\n"
	"	syscall\n"
	"	hlt\n"
	".size rawsys_thread, .-rawsys_thread\n"
	".globl rawsys_restorer\n"
	".type rawsys_restorer, @function\n"
	"rawsys_restorer:\n"
	"	mov $15, %eax\n"
	"	syscall\n"
	"	hlt\n"
	".size rawsys_restorer, .-rawsys_restorer\n"
	".section .rodata\n"
	"rawsys_msg: .ascii \"raw thread says hello\\n\"\n"
	".text\n");

static int inputs(const char *file)
{
	uint64_t r = 0;
	struct timespec ts;
	char buf[64] = "";
	long n, pid;
	int fd;

	if (raw3(SYS_getrandom, (long)&r, sizeof(r), 0) != sizeof(r))
		return 1;
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return 1;
	n = raw3(SYS_read, fd, (long)buf, sizeof(buf) - 1);
	close(fd);
	raw3(SYS_clock_gettime, CLOCK_REALTIME, (long)&ts, 0);
	pid = raw3(SYS_getpid, 0, 0, 0);
	printf("random %016llx\nread %ld [%.*s]\nclock %lld.%09ld\npid %ld\n",
	       (unsigned long long)r, n, (int)(n > 0 ? n : 0), buf, (long long)ts.tv_sec,
	       ts.tv_nsec, pid);
	return 0;
}

static int spawn(int use_vfork, char **argv)
{
	long pid;
	int st;

	fflush(stdout);
	if (use_vfork) {
		pid = rawsys_vfork_exec(argv[0], argv, environ);
	} else {
		pid = raw3(SYS_fork, 0, 0, 0);
		if (pid == 0) {
			raw3(SYS_execve, (long)argv[0], (long)argv, (long)environ);
			raw3(SYS_exit, 127, 0, 0);
		}
	}
	if (pid < 0) {
		fprintf(stderr, "rr_rawsys: fork: %s\n", strerror((int)-pid));
		return 1;
	}
	if (waitpid((pid_t)pid, &st, 0) < 0)
		return 1;
	printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

static int thread(void)
{
	static char stack[65536] __attribute__((aligned(16)));
	static int ctid = 1;
	long r;

	fflush(stdout);
	r = rawsys_thread(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				  CLONE_SYSVSEM | CLONE_CHILD_CLEARTID,
			  stack + sizeof(stack), &ctid);
	if (r < 0) {
		fprintf(stderr, "rr_rawsys: clone: %s\n", strerror((int)-r));
		return 1;
	}
	while (__atomic_load_n(&ctid, __ATOMIC_ACQUIRE))
		raw_sys(SYS_futex, (long)&ctid, FUTEX_WAIT, 1, 0);
	printf("raw thread done\n");
	return 0;
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	handled += sig;
}

static int own_restorer(void)
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} ka = {on_usr1, 0x04000000 /* SA_RESTORER */, rawsys_restorer, 0};
	long r = raw_sys(SYS_rt_sigaction, SIGUSR1, (long)&ka, 0, 8);
	int i;

	if (r < 0) {
		fprintf(stderr, "rr_rawsys: rt_sigaction: %s\n", strerror((int)-r));
		return 1;
	}
	for (i = 0; i < 3; i++)
		raise(SIGUSR1); /* libc: a replayed getpid is the recorded one */
	printf("handled %d signals\n", (int)handled / SIGUSR1);
	return handled == 3 * SIGUSR1 ? 0 : 1;
}

static int tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	printf("tsc %s\n", lo | hi ? "read" : "zero");
	return 0;
}

static char *alt_lo;
static volatile sig_atomic_t on_alt = -1;

/* SIGILL of the ud2 below: a synchronous signal, which the kernel
 * delivers at once (spool runs the handlers of asynchronous ones later,
 * from its own code), on the alternate stack when one is set. */
static void on_ill(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	char c;

	(void)sig;
	(void)si;
	on_alt = &c >= alt_lo && &c < alt_lo + 65536;
	uc->uc_mcontext.gregs[REG_RIP] += 2; /* over the ud2 */
}

static int altstack(void)
{
	static char mem[65536] __attribute__((aligned(16)));
	stack_t ss = {.ss_sp = mem, .ss_size = sizeof(mem), .ss_flags = 0}, cur;
	struct sigaction sa;
	long r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_ill;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	if (sigaction(SIGILL, &sa, NULL) < 0)
		return 1;
	alt_lo = mem;
	r = raw3(SYS_sigaltstack, (long)&ss, 0, 0);
	memset(&cur, 0, sizeof(cur));
	raw3(SYS_sigaltstack, 0, (long)&cur, 0);
	printf("set %ld, reads back %s\n", r,
	       cur.ss_sp == mem && !(cur.ss_flags & SS_DISABLE) ? "as set" : "otherwise");
	__asm__ volatile("ud2");
	printf("handler on the alternate stack: %d\n", (int)on_alt);
	ss.ss_flags = SS_DISABLE;
	r = raw3(SYS_sigaltstack, (long)&ss, 0, 0);
	raw3(SYS_sigaltstack, 0, (long)&cur, 0);
	printf("disable %ld, reads back %s\n", r,
	       cur.ss_flags & SS_DISABLE ? "disabled" : "enabled");
	__asm__ volatile("ud2");
	printf("handler on the alternate stack: %d\n", (int)on_alt);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--getpid")) {
		long n = atol(argv[2]), sum = 0;

		for (long i = 0; i < n; i++)
			sum += raw3(SYS_getpid, 0, 0, 0) & 1;
		printf("%ld\n", sum);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "--fork"))
		return spawn(0, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "--vfork"))
		return spawn(1, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "--thread"))
		return thread();
	if (argc >= 2 && !strcmp(argv[1], "--sigsys-dfl")) {
		uint64_t ka[4] = {0, 0, 0, 0}; /* SIG_DFL */

		signal(SIGSYS, SIG_DFL);
		raw_sys(SYS_rt_sigaction, SIGSYS, (long)ka, 0, 8);
		printf("alive %d\n", raw3(SYS_getpid, 0, 0, 0) > 0);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--tsc"))
		return tsc();
	if (argc >= 2 && !strcmp(argv[1], "--sigreturn"))
		return own_restorer();
	if (argc >= 2 && !strcmp(argv[1], "--sigaltstack"))
		return altstack();
	if (argc < 2)
		return 2;
	return inputs(argv[1]);
}
