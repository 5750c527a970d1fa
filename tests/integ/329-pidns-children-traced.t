#!/bin/bash
# SPDX-License-Identifier: MIT
# 329-pidns-children-traced.t - processes in a pid namespace of their own
# are traced under the pids spool sees. A child made with CLONE_NEWPID
# (clone3 through syscall()) or forked after unshare(CLONE_NEWPID) is pid 1
# in its namespace; before, its events were counted lost (its pid named
# another process to spool, which would have waited for it). Now the agent
# reads its pid, its parent's and each thread's tid from the /proc it
# inherited (spool's side), so the child, a thread it starts and a
# grandchild it forks inside the namespace (pid 3 there) each have their
# stream under their real pid and tid, and nothing is lost. Both ring
# layouts under spool probe, and spool locks. Needs CAP_SYS_ADMIN (a skip
# without it).
. "$(dirname "$0")/lib.sh"

need_cc
plan 22

c_pidns_prog >ns.c
ok "the test program builds" "$CC" -O1 -pthread -o ns ns.c
N=2
step=$(fn_of step)
if ! native="$(./ns clone3 $N 2>&1)" || [ "$native" != "clone3 children $N bad 0 parent steps $N" ]; then
	skip 21 "no pid namespace here ($native)"
	done_testing
	exit 0
fi
pass "without spool: $N children, each pid 1 of its namespace, its thread and grandchild fine"

for pk in 0 1; do
	SPOOL_RING_PACKETS=$pk spool_run probe -q -e 'func:step' -o p.trace -- ./ns clone3 $N
	is "$RC:$OUT" "0:$native" "clone3 CLONE_NEWPID, packets $pk: the program's output, exit 0"
	unlike "$ERR" "[1-9][0-9,]* events lost|incomplete|damaged" "  nothing lost, nothing damaged"
	"$SPOOL" report --functions --json p.trace >fn.json 2>fn.err
	check_sanitizer fn.err "spool report --functions"
	# parent N; each child 3, its thread 2, its grandchild 1
	# (N is 2: the parent's 2 sort among the threads' 2s)
	is "$(json fn.json "str($step[\"calls\"]) + ' ' + ' '.join(str(t['calls']) for t in sorted($step['threads'], key=lambda t: t['calls']))")" \
		"14 1 1 2 2 2 3 3" \
		"  every step call, each in its own thread: the children's, their threads' and grandchildren's"
	# processes: the parent, N children, N grandchildren; threads: those and N more
	is "$(info_streams p.trace)" "$((1 + 2 * N)) $((1 + 3 * N))" \
		"  $((1 + 2 * N)) processes under their own pids, $N threads more under their tids"
done
# The pids are spool's: none is 1, 2 or 3 (the namespaces' own view: the
# child, its thread, its grandchild), and the run counted each process.
spool_run info p.trace
is "$(awk '$1 ~ /^[0-9]+$/ && NF >= 6 && ($2 <= 3 || $3 <= 3) {n++} END {print n + 0}' run.out)" 0 \
	"spool info: no stream under a pid or tid of the namespaces' own (1 - 3)"
like "$OUT" "processes=$((1 + 2 * N))" "  the run counted $((1 + 2 * N)) processes"

# spool locks: the threads' lock, in each namespace.
locks_children "$native" cm "$N" ./ns clone3 $N

# unshare(CLONE_NEWPID), then fork: the child is pid 1 of the new namespace.
native="$(./ns unshare 2>&1)"
SPOOL_RING_PACKETS=1 spool_run probe -q -e 'func:step' -o u.trace -- ./ns unshare
is "$RC:$OUT" "0:$native" "unshare then fork: the program's output, exit 0"
unlike "$ERR" "[1-9][0-9,]* events lost|incomplete|damaged" "  nothing lost"
"$SPOOL" report --functions --json u.trace >fn.json 2>fn.err
is "$(json fn.json "str($step[\"calls\"])")" 7 "  every step call: 1 + 3 + 2 + 1"
is "$(info_streams u.trace)" "3 4" "  3 processes and a thread, each in its own stream"

# A namespace that mounts a /proc of its own: its later processes' pids
# cannot be told (their /proc/self agrees with getpid): the grandchild gets
# no ring, and its events are counted lost, never written under a pid of
# the namespace's own.
if native="$(./ns ownproc 2>&1)" && [ "$native" = "ownproc children 1 bad 0 parent steps 1" ]; then
	SPOOL_RING_PACKETS=1 spool_run probe -q -e 'func:step' -o o.trace -- ./ns ownproc
	is "$RC:$OUT" "4:$native" "a /proc of its own: the program's output, exit 4 (incomplete)"
	like "$ERR" "incomplete: 2 events lost \\(2 in a pid namespace with its own /proc" \
		"  the grandchild's 2 events counted lost, with their reason"
	"$SPOOL" report --functions --json o.trace >fn.json 2>fn.err
	is "$(json fn.json "str($step[\"calls\"]) + ' ' + str(len($step['threads']))")" "4 2" \
		"  the parent's and the child's step calls, in their own threads"
else
	skip 3 "no mount namespace with a /proc of its own here ($native)"
fi

done_testing
