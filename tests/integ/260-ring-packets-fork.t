#!/bin/bash
# SPDX-License-Identifier: MIT
# 260-ring-packets-fork.t - SPOOL_RING_PACKETS=1 and a fork while the
# parent's thread has a packet open in its ring: the child is a copy of
# that thread, ring and open packet included, and the ring is shared
# memory. A probe that fired in the child before the agent's fork handler
# gave it a ring of its own (func:libc.so.6:__run_postfork_handlers) wrote
# into the parent's open packet: the collector found it damaged ("an event
# has an unknown id") and dropped the parent's later events. And with
# every libc function probed the program died of SIGTRAP: the packet
# writer called libc's memmove inside the agent's SIGTRAP handler, where
# an int3 probe on it cannot be taken. Both processes' events must be
# there, each in its own stream, and the program run as without spool.
. "$(dirname "$0")/lib.sh"

plan 11

export SPOOL_RING_PACKETS=1
CC="${CC:-cc}"
cat >fp.c <<'C'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void step(int *n)
{
	__asm__ volatile("" ::: "memory");
	++*n;
}

int main(void)
{
	int n = 0, st;
	pid_t p;

	for (int i = 0; i < 300; i++)
		step(&n);
	p = fork();
	if (p == 0) {
		for (int i = 0; i < 200; i++)
			step(&n);
		_exit(n == 500 ? 0 : 1);
	}
	waitpid(p, &st, 0);
	for (int i = 0; i < 100; i++)
		step(&n);
	printf("child %d parent %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1, n);
	return 0;
}
C
ok "the test program builds" "$CC" -O1 -o fp fp.c
native="$(./fp)"
is "$native" "child 0 parent 400" "without spool: the child counts 500, the parent 400"

spool_run probe -q -e 'func:step' -e 'func:libc.so.6:__run_postfork_handlers' -o f.trace -- ./fp
# (the child's entry of __run_postfork_handlers runs before the agent's
# fork handler: the child starts over there, with a ring of its own, and
# the event is kept: 306)
is "$RC:$OUT" "0:$native" "step and __run_postfork_handlers probed: the program's output, exit 0"
unlike "$ERR" "damaged" "  no ring is damaged"
spool_run info f.trace
is_rc 0 "  spool info: complete, the child's entry of __run_postfork_handlers kept"
"$SPOOL" report --functions --json f.trace >fn.json 2>run.err
step='[f for f in d["functions"] if f["name"] == "step"][0]'
is "$(json fn.json "$step[\"calls\"]")" 600 "  every call of step is in the trace (300 + 200 child + 100)"
is "$(json fn.json "sorted(t[\"calls\"] for t in $step[\"threads\"])" | tr '\n' ' ')" "200 400 " \
	"  the child's 200 and the parent's 400, each in its own thread"
"$SPOOL" locks -q -o l.trace -- ./fp >l.out 2>l.err
RC=$?
check_sanitizer l.err "spool locks"
is "$RC:$(cat l.out)" "0:$native" "spool locks (no probes): the same"

spool_run probe -q -e 'func:libc.so.6:*' -o a.trace -- ./fp
is "$RC:$OUT" "0:$native" "every libc function probed: the program's output, exit 0 (the fork window's events kept)"
unlike "$ERR" "SIGTRAP|signal 5|damaged" "  no SIGTRAP, no ring damaged"
spool_run info a.trace
like "$OUT" "^events: [1-9]" "  the trace reads"

done_testing
