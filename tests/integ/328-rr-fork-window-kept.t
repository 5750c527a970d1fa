#!/bin/bash
# SPDX-License-Identifier: MIT
# 328-rr-fork-window-kept.t - under spool record and spool replay, what a
# fork child does before the agent's fork handlers (here: a library's own
# pthread_atfork child handler, registered by its constructor before the
# preloaded agent's, which re-initializes and takes a mutex of its own, as
# libraries that keep locks do) is kept in the child's recording, as it is
# for plain tracing (306): the child starts over on that first event (its
# ring, and its number in the recording's process tree, as its fork
# handlers would have given it), and its handlers then find it done.
# Before, each such lock event was counted lost ("in fork children before
# their ring"), the recording was incomplete (exit 4) and the replay
# refused it. Serial and sync mode, with lock events written too
# (--lock-events), each recorded once and replayed twice.
. "$(dirname "$0")/lib.sh"

need_cc
plan 18

cat >fwlib.c <<'C'
#include <pthread.h>

static pthread_mutex_t fw_m = PTHREAD_MUTEX_INITIALIZER;
static long fw_children;

/* a library's fork handler: its lock is new in the child, then taken */
static void fw_child(void)
{
	pthread_mutex_init(&fw_m, NULL);
	pthread_mutex_lock(&fw_m);
	fw_children++;
	pthread_mutex_unlock(&fw_m);
}

/* (a constructor of a library the program links: it runs before the
 * preloaded agent's, so its child handler runs before the agent's) */
__attribute__((constructor)) static void fw_init(void)
{
	pthread_atfork(NULL, NULL, fw_child);
}

long fw_count(void)
{
	long n;

	pthread_mutex_lock(&fw_m);
	n = fw_children;
	pthread_mutex_unlock(&fw_m);
	return n;
}
C
cat >fw.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

long fw_count(void);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long taken;

static void *worker(void *a)
{
	(void)a;
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&m);
		taken++;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

/* fw N: N fork children; each reports what the library's child handler
 * counted, by its exit status */
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), st, bad = 0;
	pthread_t th;

	pthread_create(&th, NULL, worker, NULL);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0) {
			/* (not m: the worker may hold it at the fork) */
			static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;

			pthread_mutex_lock(&cm);
			pthread_mutex_unlock(&cm);
			_exit(fw_count() == 1 ? 0 : 1);
		}
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	pthread_join(th, NULL);
	printf("children %d bad %d taken %ld\n", n, bad, taken);
	return 0;
}
C
if ! "$CC" -shared -fPIC -O1 -o libfw.so fwlib.c -pthread ||
	! "$CC" -O1 -pthread -o fw fw.c -L. -Wl,--no-as-needed -lfw -Wl,-rpath,"$PWD"; then
	echo "Bail out! cannot build the test program"
	exit 1
fi
pass "the test program and its library build"
N=4
native="$(./fw $N)"
is "$native" "children $N bad 0 taken 200" "without spool: $N children, each ran the library's fork handler"

for mode in serial sync; do
	spool_run record --mode $mode --lock-events -o $mode.trace -- ./fw $N
	is "$RC:$OUT" "0:$native" "record --mode $mode: the program's output, exit 0"
	unlike "$ERR" "[1-9][0-9,]* events lost|lost [1-9]|in fork children|incomplete|refus" \
		"  nothing lost in fork children, nothing refused"
	like "$ERR" "recorded .*$((N + 1)) processes" "  $((N + 1)) processes recorded"
	spool_run info $mode.trace
	is_rc 0 "  spool info: complete"
	unlike "$OUT" "fork children|missing" "  spool info: nothing missing"
	# the library's mutex, taken in each child by its fork handler (in
	# the window) and by fw_count: 2 acquisitions a child, in the child's
	# own process (before: the handler's were lost, 1 a child)
	"$SPOOL" report --locks --json $mode.trace >lk.json 2>lk.err
	check_sanitizer lk.err "spool report --locks"
	is "$(json lk.json "d[\"$J_TOTALS\"][\"lost\"]")" 0 "  spool report --locks --json: lost 0"
	is "$(json lk.json "' '.join(str(l['write']['acquisitions']) for l in d['$J_LOCKS'] if l['$J_NAME'] == 'fw_m')")" \
		"$(for i in $(seq $N); do printf '2 '; done | sed 's/ $//')" \
		"  the library's mutex: 2 acquisitions in each of the $N children, the fork handler's kept"
	printf '%s\n' "$native" >$mode.want
	replays_same 2 0 $mode.want -q $mode.trace
	is "$SAME" 2 "  2 replays print the recorded output and exit 0"
done

done_testing
