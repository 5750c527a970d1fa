#!/bin/bash
# SPDX-License-Identifier: MIT
# 197-probe-retaddr-deep.t - exits through the return address at the
# edges: a recursion deeper than the shadow stack (16384 frames): the calls
# beyond it keep their return address, run as natively, and spool says how
# many exits it did not record (the report agrees); a fork from inside
# swapped frames: parent and child each return through all of them (the
# child has its copy of the shadow stack); and a program that blocks every
# signal: swapped exits need no SIGTRAP. The program is built here at -O2.
. "$(dirname "$0")/lib.sh"

CC="$(command -v cc || command -v gcc || true)"
if [ -z "$CC" ]; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi
plan 11

cat >deep.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static long n_deep, n_fork;
static volatile long sink;
__attribute__((noinline)) long dp_deep(long d)
{
	n_deep++;
	if (d <= 0)
		return 0;
	long r = dp_deep(d - 1);
	sink ^= r; /* work after the call: no loop made of the recursion */
	return r + 1;
}
__attribute__((noinline)) long dp_fork(int d)
{
	n_fork++;
	if (d > 0) {
		long r = dp_fork(d - 1);
		sink ^= r;
		return r + 1;
	}
	pid_t p = fork();
	if (p == 0)
		return 1000; /* the child returns through every swapped frame */
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
int main(int argc, char **argv)
{
	long d = argc > 1 ? atol(argv[1]) : 20000;
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	long r = dp_deep(d);
	long f = dp_fork(5);
	printf("%s dp_deep %ld r %ld dp_fork %ld f %ld\n", f >= 1000 ? "child" : "parent", n_deep, r,
	       n_fork, f);
	return f >= 1000 ? 7 : 0;
}
C
if ! "$CC" -O2 -o deep deep.c; then
	fail "deep.c builds at -O2"
	done_testing
	exit
fi

D=20000
native="$(./deep $D)"
spool_run probe -q --exits retaddr -e 'func:dp_*' -- ./deep $D
is_rc 0 "a recursion $D deep, a fork inside swapped frames, every signal blocked: exit 0" || show_run
is "$OUT" "$native" "parent and child print what they print natively"
full=$((D + 1 - 16384))
like "$ERR" "warning: $full calls' exits were not recorded: their thread's shadow stack of return addresses was full" \
	"spool says the $full calls beyond the shadow stack's 16384 frames have no recorded exit"
spool_run report --functions --json spool.trace
echo "$OUT" >funcs.json
is "$(json funcs.json '[f["calls"] for f in d["functions"] if f["name"] == "dp_deep"][0]')" $((D + 1)) \
	"every call of the recursion was recorded"
is "$(json funcs.json '[f["no_exit"] for f in d["functions"] if f["name"] == "dp_deep"][0]')" "$full" \
	"the report's calls without a seen exit are those $full"
is "$(json funcs.json '[f["no_exit"] for f in d["functions"] if f["name"] == "dp_fork"][0]')" 0 \
	"the parent saw every exit of the frames it forked inside"

# one frame beyond the shadow stack: one call, said in the singular
D=16384
spool_run probe -q --exits retaddr -e 'func:dp_*' -- ./deep $D
like "$ERR" "warning: 1 call's exit was not recorded: its thread's shadow stack of return addresses was full" \
	"$D deep: spool says the 1 call beyond the shadow stack has no recorded exit (singular)"

D=1000
native="$(./deep $D)"
spool_run probe -q --exits retaddr -e 'func:dp_*' -- ./deep $D
is "$RC $OUT" "0 $native" "$D deep: exit 0, output unchanged"
unlike "$ERR" "shadow stack" "no warning under the limit"
spool_run report --functions --json spool.trace
echo "$OUT" >funcs.json
is "$(json funcs.json 'sum(f["no_exit"] for f in d["functions"])')" 0 "every exit recorded"
spool_run probe --list --exits retaddr -e 'func:dp_*' ./deep
unlike "$OUT" ' int3 ' "no int3 probe: nothing needs SIGTRAP"

done_testing
