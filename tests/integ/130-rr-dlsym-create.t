#!/bin/bash
# SPDX-License-Identifier: MIT
# 130-rr-dlsym-create.t - a thread created through a pthread_create that a
# library found with dlsym, as jemalloc does for its background thread
# (doc/record.md, "Threads"): a library linked after the agent looks
# pthread_create up with dlsym(RTLD_NEXT, ...), dlsym(RTLD_DEFAULT, ...) or
# dlsym on a handle of libc, and starts a thread with it that takes a mutex
# the main thread takes too. In both modes: record gives no "could not
# number" warning, and three replays print the recorded output (which
# depends on the interleaving) and exit 0. The agent's dlsym keeps what
# RTLD_NEXT means for everything else: from the executable it finds the
# library's bg_sym, from the library it finds none.
. "$(dirname "$0")/lib.sh"

if ! command -v cc >/dev/null; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi
plan 13

cat >lib.c <<'EOF2'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
static pthread_mutex_t bg_mu = PTHREAD_MUTEX_INITIALIZER;
long bg_count;
int bg_sym(void) { return 2; }
static void *bg_main(void *a)
{
	for (int i = 0; i < 3000; i++) {
		pthread_mutex_lock(&bg_mu);
		bg_count++;
		pthread_mutex_unlock(&bg_mu);
	}
	return a;
}
void bg_lock(void) { pthread_mutex_lock(&bg_mu); }
void bg_unlock(void) { pthread_mutex_unlock(&bg_mu); }
int bg_start(const char *how, pthread_t *t)
{
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	void *h = RTLD_NEXT;

	if (!strcmp(how, "default"))
		h = RTLD_DEFAULT;
	else if (!strcmp(how, "handle"))
		h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
			  void *))dlsym(h, "pthread_create");
	printf("lib: RTLD_NEXT bg_sym from the library: %s\n",
	       dlsym(RTLD_NEXT, "bg_sym") ? "found" : "none");
	return create(t, NULL, bg_main, NULL);
}
EOF2
cat >main.c <<'EOF2'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
int bg_start(const char *how, pthread_t *t);
void bg_lock(void);
void bg_unlock(void);
extern long bg_count;
int bg_sym(void) { return 1; }
int main(int argc, char **argv)
{
	pthread_t t;
	long seen[6];
	int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "bg_sym");

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("main: RTLD_NEXT bg_sym from the executable: %d\n", next ? next() : 0);
	if (bg_start(argv[1], &t))
		return 1;
	for (int i = 0; i < 6; i++) {
		bg_lock();
		seen[i] = bg_count;
		bg_unlock();
		for (volatile int k = 0; k < 50000; k++)
			;
	}
	pthread_join(t, NULL);
	for (int i = 0; i < 6; i++)
		printf("main saw %ld\n", seen[i]);
	printf("end %ld\n", bg_count);
	return 0;
}
EOF2
if cc -shared -fPIC -O1 -o libbg.so lib.c -lpthread -ldl &&
	cc -O1 -o main main.c -L. -lbg -Wl,-rpath,"$PWD" -lpthread -ldl; then
	pass "the library and the program build"
else
	fail "the library and the program build"
fi

for mode in serial sync; do
	for how in next default handle; do
		spool_run record --mode "$mode" -o "rec-$mode-$how" -- ./main "$how"
		cp run.out "rec-$mode-$how.out"
		if [ "$RC" = 0 ] && grep -q '^end 3000$' run.out &&
			grep -q 'from the executable: 2$' run.out &&
			grep -q 'from the library: none$' run.out &&
			! grep -q 'could not number' run.err; then
			pass "$mode $how: recorded, no 'could not number' warning, RTLD_NEXT as without spool"
		else
			fail "$mode $how: recorded, no 'could not number' warning, RTLD_NEXT as without spool"
			show_run
		fi
		replays_same 3 0 "rec-$mode-$how.out" -q "rec-$mode-$how"
		is "$SAME" 3 "$mode $how: 3 replays print the recorded output and exit 0"
	done
done
done_testing
