// SPDX-License-Identifier: MIT
/*
 * rr_layout.c - a program whose output is its own address-space layout and
 * identity, for the record/replay layout tests (tests/integ/117-119): it
 * prints where its stack, heap (small and large blocks), an anonymous
 * mapping, a thread's stack, libc and itself are, then passes a heap
 * pointer through a pipe and through epoll_event.data and dereferences what
 * comes back. A replay hands back the recorded bytes of those reads, so it
 * prints the same lines (instead of crashing) only when it runs with the
 * recorded layout. It also prints its argv[0], umask, a resource limit and
 * its personality, which a replay must restore.
 *
 * usage: rr_layout [- (read stdin first)] [ARGS...]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

struct token {
	char name[32];
	int value;
};

static void *thread_stack(void *arg)
{
	int local;

	*(uintptr_t *)arg = (uintptr_t)&local;
	return NULL;
}

int main(int argc, char **argv)
{
	int local, pfd[2], ep;
	struct token *tok = malloc(sizeof(*tok)), *back = NULL;
	void *big = malloc(1 << 20);
	void *map = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct epoll_event ev = {.events = EPOLLIN}, got;
	uintptr_t tstack = 0;
	struct rlimit rl;
	pthread_t t;
	mode_t um = umask(022);
	char chunk[65536];
	ssize_t got_in;
	size_t in = 0;

	umask(um);
	/* rr_layout -: read stdin first (recorded input; packed with
	 * spool record --compress) */
	while (argc > 1 && !strcmp(argv[1], "-") && (got_in = read(0, chunk, sizeof(chunk))) > 0)
		in += (size_t)got_in;
	if (argc > 1 && !strcmp(argv[1], "-"))
		printf("stdin %zu bytes\n", in);
	if (!tok || !big || map == MAP_FAILED || pipe(pfd) < 0)
		return 1;
	snprintf(tok->name, sizeof(tok->name), "heap token");
	tok->value = 42;
	pthread_create(&t, NULL, thread_stack, &tstack);
	pthread_join(t, NULL);
	getrlimit(RLIMIT_NOFILE, &rl);
	printf("argv0 %s argc %d\n", argv[0], argc);
	printf("umask %03o nofile %llu personality 0x%x\n", (unsigned)um,
	       (unsigned long long)rl.rlim_cur, (unsigned)personality(0xffffffff));
	printf("stack %p argv %p\n", (void *)&local, (void *)argv);
	printf("heap %p brk %p\n", (void *)tok, sbrk(0));
	printf("big %p mmap %p\n", big, map);
	printf("thread stack %p\n", (void *)tstack);
	printf("libc %p main %p\n", (void *)&printf, (void *)&main);
	fflush(stdout);

	/* A pointer through a pipe: the replay reads the recorded bytes. */
	if (write(pfd[1], &tok, sizeof(tok)) != (ssize_t)sizeof(tok) ||
	    read(pfd[0], &back, sizeof(back)) != (ssize_t)sizeof(back))
		return 1;
	printf("pipe gave %p: %s %d\n", (void *)back, back->name, back->value);

	/* ... and through epoll_event.data, as an epoll server keeps it. */
	ep = epoll_create1(0);
	ev.data.ptr = tok;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &ev) < 0 || write(pfd[1], "x", 1) != 1 ||
	    epoll_wait(ep, &got, 1, 1000) != 1)
		return 1;
	back = got.data.ptr;
	printf("epoll gave %p: %s %d\n", (void *)back, back->name, back->value);
	return 0;
}
