#!/bin/bash
# SPDX-License-Identifier: MIT
# 198-probe-retaddr-attach.t - exits through the return address in attach
# mode (spool probe -p): a C program built at -O2 runs, once spool has
# attached, a loop of calls whose rets have no window for 0.3 s, then a
# call that waits for a file. spool (--exits retaddr: the waiting
# function's ret has a window) swaps the return addresses of the calls it
# sees enter, and detaches (SIGINT, once the program says it waits) while
# the waiting call's frame still holds the agent's trampoline address; the
# test then makes the file: the program must run on, return through it and
# end with its normal output. (A detach after a fixed 1.5 s came before
# the nap under load: 4 ASan runs of 40, issue 12.) A program that has the C++ runtime mapped keeps patched
# (int3) exits in attach mode: an exception could not pass a swapped frame
# there (the unwinder calls reach a dlopen'ed agent no interposer).
. "$(dirname "$0")/lib.sh"

CC="$(command -v cc || command -v gcc || true)"
CXX="$(command -v g++ || command -v c++ || true)"
if [ -z "$CC" ]; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi
plan 9

cat >att.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
struct at_obj { int kind, refs; struct at_obj *next; long val; };
static volatile long sink;
__attribute__((noinline)) int at_pick(struct at_obj *o)
{
	if (o->kind) {
		if (o->refs)
			return 1;
		o->val++;
		return 2;
	}
	return 0;
}
/* waits inside a probed call (for rel, or ms without one): its frame is
 * swapped while spool detaches */
__attribute__((noinline)) int at_nap(struct at_obj *o, int ms, const char *rel)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	if (!o)
		return -1;
	if (rel) {
		printf("nap\n");
		fflush(stdout);
		while (access(rel, F_OK))
			usleep(5000);
	} else {
		nanosleep(&ts, NULL);
	}
	if (o->kind == 9)
		return 1;
	o->val += ms;
	return 0;
}
int main(int argc, char **argv)
{
	struct at_obj o[4];
	long s = 0, i = 0;
	for (int k = 0; k < 4; k++) {
		o[k].kind = k & 1;
		o[k].refs = k & 2;
		o[k].val = 0;
		o[k].next = &o[(k + 1) & 3];
	}
#ifdef __cplusplus
	/* the C++ runtime, mapped and used: exceptions can pass any frame */
	try {
		if (argc > 99)
			throw argc;
	} catch (int) {
		return 3;
	}
#endif
	printf("ready\n");
	fflush(stdout);
	/* until spool has attached (the test creates the file), then 0.3 s
	 * of calls, then a nap until the test creates the second file, then
	 * more calls */
	while (argc > 1 && access(argv[1], F_OK))
		usleep(10000);
	for (int r = 0; r < 30; r++) {
		for (int k = 0; k < 10000; k++, i++)
			s += at_pick(&o[i & 3]);
		usleep(10000);
	}
	s += at_nap(&o[0], 4000, argc > 2 ? argv[2] : NULL);
	for (int k = 0; k < 10000; k++, i++)
		s += at_pick(&o[i & 3]);
	printf("done %ld %ld\n", s, o[0].val + o[1].val + o[2].val + o[3].val);
	return 0;
}
C
# -falign-jumps=1: no alignment padding after at_pick's first ret (a branch
# target follows it at once). GCC's default padding is dead bytes a jump
# window may cover (spool uses them since issue 16): the ret would have one.
if ! "$CC" -O2 -falign-jumps=1 -o att att.c; then
	fail "att.c builds at -O2"
	done_testing
	exit
fi
native="$(touch go.now rel.now; ./att go.now rel.now)"

rm -f go.now rel.now
./att go.now rel.now >prog.out &
PID=$!
wait_ready prog.out
timeout -k 5 120 "$SPOOL" probe --exits retaddr -p "$PID" -e 'func:at_*' >run.out 2>run.err &
SPID=$!
wait_for 'probes placed' run.err 60
touch go.now
wait_for '^nap' prog.out 120
# to spool itself: timeout, sent it, would SIGKILL spool 5 s later, before
# an ASan build under load has written the trace
kill -INT "$(pgrep -P "$SPID")"
wait "$SPID"
RC=$?
ERR="$(cat run.err)"
check_sanitizer run.err "spool probe --exits retaddr -p"
touch rel.now
is_rc 0 "attach, probe, detach (during the nap)" || show_run
wait "$PID"
prc=$?
is "$prc" 0 "the program runs on after the detach and exits 0"
is "$(cat prog.out)" "$native" "its output is the native one (the nap returned through the trampoline)"
spool_run report --functions --json spool.trace
echo "$OUT" >funcs.json
num_cmp "$(json funcs.json '[f["calls"] for f in d["functions"] if f["name"] == "at_pick"][0]')" -gt 0 \
	"at_pick's calls were recorded"
is "$(json funcs.json '[f["no_exit"] for f in d["functions"] if f["name"] == "at_pick"][0]')" 0 \
	"every at_pick call seen entering was seen returning (through the return address)"
is "$(json funcs.json '[(f["calls"], f["no_exit"], f["open_at_end"]) for f in d["functions"] if f["name"] == "at_nap"][0]')" "(1, 1, 1)" \
	"the nap's entry was recorded, its return came after the detach (through the swapped address): open at the end"

# the plan: swapped in a C program, patched where the C++ runtime is mapped
./att >prog2.out &
PID=$!
for i in $(seq 1 100); do [ -s prog2.out ] && break; sleep 0.05; done
SPOOL_DEBUG= spool_run probe --list -p "$PID" -e 'func:at_pick' 2>/dev/null
kill "$PID" 2>/dev/null
wait "$PID" 2>/dev/null
like "$OUT" '^at_pick +exit +retaddr ' "attach --list: at_pick's exit goes through the return address"
if [ -n "$CXX" ]; then
	cp att.c attx.cc
	"$CXX" -O2 -falign-jumps=1 -o attx attx.cc
	./attx >prog3.out &
	PID=$!
	for i in $(seq 1 100); do [ -s prog3.out ] && break; sleep 0.05; done
	spool_run probe --list -p "$PID" -e 'func:*at_pick*'
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	unlike "$OUT" ' exit +retaddr ' "attach to a program with the C++ runtime: no exit through the return address"
	like "$OUT" ' exit +int3 ' "... its ret without a window is an int3"
else
	skip 2 "no C++ compiler"
fi

done_testing
