// SPDX-License-Identifier: MIT
/*
 * rr_createfail - pthread_create that fails, for record/replay
 * (doc/record.md, "Threads"; tests/integ/131-rr-create.t).
 *
 *   rr_createfail HOW
 *
 * HOW is what makes the second of three pthread_create calls fail:
 *   as       a soft RLIMIT_AS just above what the process maps (the new
 *            thread's stack cannot be mapped: EAGAIN), restored after
 *   stack    an attribute asking for a 64 TiB stack (EAGAIN or ENOMEM)
 *   seccomp  a seccomp filter that fails clone3 and clone with EPERM (the
 *            third create fails too: a filter cannot be removed)
 *   nproc    RLIMIT_NPROC of 1 for the user nobody, which the process
 *            becomes (setgid, setuid: run it as root): EAGAIN (and the
 *            third create fails too: root's limit cannot be had back)
 *
 * The threads that are created add to a counter under a mutex while the
 * main thread samples it, so the output depends on the interleaving.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int started;

static void *worker(void *arg)
{
	pthread_mutex_lock(&mu);
	started = 1;
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 3000; i++) {
		pthread_mutex_lock(&mu);
		counter++;
		pthread_mutex_unlock(&mu);
	}
	return arg;
}

/* The process's mapped size in bytes (VmSize). */
static unsigned long vm_size(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static int no_clone(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog p = {sizeof(f) / sizeof(f[0]), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "as";
	pthread_t t[3];
	int ok[3], rc;
	struct rlimit old;
	long seen[4];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 3; i++) {
		pthread_attr_t a, *ap = NULL;

		if (i == 1 && !strcmp(how, "as")) {
			struct rlimit lim;

			getrlimit(RLIMIT_AS, &old);
			lim = old;
			lim.rlim_cur = vm_size() + (1ul << 20);
			if (setrlimit(RLIMIT_AS, &lim))
				perror("setrlimit");
		}
		if (i == 1 && !strcmp(how, "stack")) {
			pthread_attr_init(&a);
			if (pthread_attr_setstacksize(&a, 1ul << 46))
				printf("setstacksize refused\n");
			ap = &a;
		}
		if (i == 1 && !strcmp(how, "seccomp") && no_clone())
			perror("seccomp");
		if (i == 1 && !strcmp(how, "nproc")) {
			struct rlimit one = {1, 1};

			if (setgid(65534) || setuid(65534) || setrlimit(RLIMIT_NPROC, &one))
				perror("nproc");
		}
		rc = pthread_create(&t[i], ap, worker, NULL);
		/* (nothing else may map memory meanwhile: spool's agent maps
		 * a thread's ring when the thread starts, see below) */
		if (i == 1 && !strcmp(how, "as"))
			setrlimit(RLIMIT_AS, &old);
		ok[i] = rc == 0;
		printf("create %d: %s\n", i, rc ? strerror(rc) : "ok");
		/* The first worker has started before the limit is set. */
		while (i == 0 && !rc) {
			int go;

			pthread_mutex_lock(&mu);
			go = started;
			pthread_mutex_unlock(&mu);
			if (go)
				break;
			sched_yield();
		}
		if (ap)
			pthread_attr_destroy(ap);
		pthread_mutex_lock(&mu);
		seen[i] = counter;
		pthread_mutex_unlock(&mu);
	}
	for (int i = 0; i < 3; i++)
		if (ok[i])
			pthread_join(t[i], NULL);
	seen[3] = counter;
	for (int i = 0; i < 4; i++)
		printf("counter %d: %ld\n", i, seen[i]);
	return 0;
}
