#!/bin/bash
# SPDX-License-Identifier: MIT
# 259-ring-packets-live-idle.t - SPOOL_RING_PACKETS=1: a thread's open
# packet stays in its ring until it fills or the thread ends, so threads
# that took their locks and then sat blocked had none of those events in
# the trace of a spool killed meanwhile (0 events). The collector's flush
# (about every second) now writes a copy of each live thread's open packet
# up to its last whole event, replaced in place by the packet once it is
# finished: the killed spool's trace holds every lock event of the idle
# threads, and the run that is not killed counts each event once.
. "$(dirname "$0")/lib.sh"

plan 13

export SPOOL_RING_PACKETS=1
CC="${CC:-cc}"
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

# Not killed: every event once (the copies written by the flushes while the
# threads sat idle are replaced by their packets).
rm -f in.fifo
mkfifo in.fifo
"$SPOOL" locks -q -o w.trace -- ./idle <in.fifo >w.out 2>w.err &
sp=$!
exec 3>in.fifo
wait_ready w.out
sleep 2.5 # (two flushes of the idle threads' packets, whatever the load)
exec 3>&-
wait "$sp"
RC=$?
check_sanitizer w.err "spool locks"
is "$RC:$(tail -n 1 w.out)" "0:done" "spool locks runs the program to its end"
report_json w.trace
is "$(lock_stat report.json lock_a "$F_ACQ"):$(lock_stat report.json lock_b "$F_ACQ"):$(lock_stat report.json lock_c "$F_ACQ")" \
	"100:200:300" "  each thread's acquisitions counted once (100, 200, 300)"
ev=$(trace_summary w.trace events)
spool_run info w.trace
is_rc 0 "  spool info: complete, nothing lost"
unlike "$OUT" "problem|truncated" "  no stream is damaged or cut short"
like "$OUT" "events: $ev \(" "  the run counted each event once: spool info reads back its $ev"

# Killed (SIGKILL) while the 3 threads are blocked with their packets open.
rm -f in.fifo
mkfifo in.fifo
"$SPOOL" locks -q -o k.trace -- ./idle <in.fifo >k.out 2>k.err &
sp=$!
exec 3>in.fifo
wait_ready k.out
PART="k.trace.writing.$sp"
# until a flush wrote the 1,200 lock events of the idle threads (at most
# 30 s; without the copies of open packets they never come)
for _ in $(seq 60); do
	n=$("$SPOOL" info "$PART" 2>/dev/null | sed -n 's/^events: \([0-9]*\).*/\1/p')
	[ "${n:-0}" -ge 1200 ] && break
	sleep 0.5
done
prog=$(prog_of "$sp")
kill -KILL "$sp"
wait "$sp" 2>/dev/null
is "$?" 137 "spool locks killed by SIGKILL while its threads sit idle"
exec 3>&-
for _ in $(seq 200); do
	case "$(cut -d' ' -f3 "/proc/$prog/stat" 2>/dev/null)" in
	"" | Z) break ;;
	esac
	sleep 0.05
done
check_sanitizer k.err "spool locks (killed)"
is "$(tail -n 1 k.out)" "done" "  the program ran on"
spool_run info "$PART"
is_rc 4 "  spool info: the trace of a killed spool is incomplete"
like "$OUT" "^writer: did not finish" "  its writer did not finish"
unlike "$OUT" "problem|truncated" "  every packet in it reads whole"
report_json "$PART"
is "$(lock_stat report.json lock_a "$F_ACQ"):$(lock_stat report.json lock_b "$F_ACQ"):$(lock_stat report.json lock_c "$F_ACQ")" \
	"100:200:300" "  it holds every acquisition of the idle threads (100, 200, 300)"
if command -v babeltrace2 >/dev/null; then
	bt_count "$PART" >/dev/null
	is "$?" 0 "  babeltrace2 reads it"
else
	skip 1 "babeltrace2 is not installed"
fi

done_testing
