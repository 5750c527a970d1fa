#!/bin/bash
# SPDX-License-Identifier: MIT
# 274-stream-live-packets.t - spool locks --stream with packets in the ring
# (the default): a thread's open packet stays in its ring until it fills or
# the thread ends, and the file writer's provisional copy of it (written at
# each flush, then replaced in place by the finished packet) was not made
# with --stream, whose sender mirrored only what a file gained at its end.
# So the host had none of the events of threads that took their locks and
# then sat blocked. Now the sender is told where each stream file's
# finished packets end: it counts only those, and sends the provisional
# copy again while it changes. The host's copy holds the idle threads'
# events while they still sit blocked, and, at the end, each event once.
. "$(dirname "$0")/lib.sh"

need_cc
plan 10

cat >idle.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_c = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *locks[3] = {&lock_a, &lock_b, &lock_c};
static int done, pipefd[2];

/* thread i takes its lock 100 * (i + 1) times, then blocks in read */
static void *th(void *arg)
{
	long i = (long)arg;
	char c;

	for (int k = 0; k < 100 * (i + 1); k++) {
		pthread_mutex_lock(locks[i]);
		pthread_mutex_unlock(locks[i]);
	}
	__atomic_fetch_add(&done, 1, __ATOMIC_RELEASE);
	return read(pipefd[0], &c, 1) == 1 ? NULL : arg;
}

int main(void)
{
	pthread_t t[3];
	char buf[64];

	if (pipe(pipefd))
		return 2;
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, th, (void *)i);
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 3)
		usleep(1000);
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	if (write(pipefd[1], "xyz", 3) != 3)
		return 3;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
C
ok "the test program builds" "$CC" -O1 -pthread -o idle idle.c

"$SPOOL" receive --port 0 --bind 127.0.0.1 -o host.trace >recv.out 2>recv.err &
RPID=$!
wait_for 'receiving on' recv.err 15
PORT="$(sed -n 's/.*receiving on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' recv.err)"
[ -n "$PORT" ] || diag "no port: $(cat recv.err)"

rm -f in.fifo
mkfifo in.fifo
"$SPOOL" locks -q --stream "127.0.0.1:$PORT" -o board.trace -- ./idle <in.fifo >b.out 2>b.err &
sp=$!
exec 3>in.fifo
wait_ready b.out
# until the host has the 1,200 lock events of the idle threads (at most
# 30 s; without the provisional copies they come only when the threads end)
n=0
for _ in $(seq 60); do
	part=$(ls -d host.trace.writing.* 2>/dev/null | head -n 1)
	if [ -n "$part" ]; then
		"$SPOOL" report --locks --json "$part" >live.json 2>live.err
		n=$(json live.json "sum(l[\"write\"][\"acquisitions\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"].startswith(\"lock_\"))" 2>/dev/null)
		[ "${n:-0}" -ge 600 ] && break
	fi
	sleep 0.5
done
is "${n:-0}" 600 "while the threads sit blocked, the host's copy has their 600 acquisitions"
unlike "$(cat live.err 2>/dev/null)" "problem|truncated|damaged" "  and reads whole"
exec 3>&-
wait "$sp"
RC=$?
check_sanitizer b.err "spool locks --stream"
is "$RC:$(tail -n 1 b.out)" "0:done" "spool locks --stream runs the program to its end, exit 0"
ok "  the board keeps nothing" test ! -e board.trace
wait "$RPID"
RC=$? is_rc 0 "spool receive exits 0: every event the board announced arrived"
spool_run info host.trace
is_rc 0 "the host's copy is whole (spool info exits 0)"
unlike "$OUT" "problem|truncated" "  no stream is damaged or cut short"
ev=$(trace_summary host.trace events)
like "$OUT" "events: $ev \\(" "  the run's count of events is what the host's copy holds ($ev)"
report_json host.trace
is "$(lock_stat report.json lock_a "$F_ACQ"):$(lock_stat report.json lock_b "$F_ACQ"):$(lock_stat report.json lock_c "$F_ACQ")" \
	"100:200:300" "  each thread's acquisitions counted once (100, 200, 300)"

done_testing
