#!/bin/bash
# SPDX-License-Identifier: MIT
# 280-clone-threads-probe.t - spool probe, launched and attached with -p,
# on a program whose threads are made with glibc's clone() and (x86-64)
# its own clone system call, none with a TLS of its own
# (tests/progs/clone_locks). Their function entries used to push onto
# their creator's shadow stack of return addresses: attached with a jump
# probe the program died (SIGSEGV), launched with func:* it aborted. Now
# their probe hits are dropped and counted lost, "in threads made by the
# program's own clone", and the pthread's are recorded whole; the program
# ends as natively (output, status); spool says what it does not cover.
. "$(dirname "$0")/lib.sh"

PROG="$CL_PROG"
ROUNDS=10
CALLS=$CL_CALLS
plan 19

clone_locks_native $ROUNDS


# launched, one function: its entry and exit per call
"$SPOOL" probe -o p.trace -e 'func:clone_leaf' -- "$PROG" $ROUNDS >p.out 2>p.err
RC=$?
check_sanitizer p.err "spool probe"
ERR=$(cat p.err)
is "$RC $(echo $(grep -x -E '(counter|sums) (ok|BAD)' p.out))" "4 $native" \
	"spool probe: the program's output; exit 4 (events lost, said)" || diag "$ERR"
# per call of its loop: a lock, an unlock (probe mode records lock
# calls too), clone_leaf's entry and its exit
want=$((made * CALLS * 4))
like "$ERR" "p\\.trace is incomplete: $want events lost \\($want in threads made by the program's own clone\\)" \
	"  $want events lost: every lock call, entry and exit of the $made clone threads"
like "$ERR" "the program made [0-9]+ threads? with its own clone system call .*counted as lost" \
	"  spool says what it does not cover for them"
unlike "$ERR" "damaged" "  no ring damaged"
"$SPOOL" report --functions --json p.trace >fn.json 2>fn.err
check_sanitizer fn.err "spool report --functions"
is "$(json fn.json "d[\"$J_TOTALS\"][\"lost\"]")" "$want" "  spool report --functions --json: lost $want"
is "$(json fn.json '[f for f in d["functions"] if f["name"] == "clone_leaf"][0]["calls"]')" \
	$((ROUNDS * CALLS)) "  clone_leaf: the pthreads' $((ROUNDS * CALLS)) calls, whole"

# launched, every function (exits through the return address: the case
# that aborted)
"$SPOOL" probe -q -o q.trace -e 'func:*' -- "$PROG" $ROUNDS >q.out 2>q.err
RC=$?
check_sanitizer q.err "spool probe func:*"
is "$RC $(echo $(grep -x -E '(counter|sums) (ok|BAD)' q.out))" "4 $native" "spool probe -e 'func:*': the program's output; exit 4" ||
	diag "$(cat q.err)"
like "$(cat q.err)" "incomplete: [0-9]+ events lost \\([0-9]+ in threads made by the program's own clone\\)" \
	"  the clone threads' events counted lost"

# attached, twice: jump probes only (clone's GOT slots still go to the
# agent), and every function (int3 probes among them)
for e in 'func:clone_leaf' 'func:*'; do
	rm -f STOP a.out  # a.out of the last round says ready before the next one exists
	"$PROG" STOP >a.out 2>a.err &
	pid=$!
	wait_for ready a.out 15
	timeout -k 5 60 "$SPOOL" probe -p "$pid" -d 1s -o a.trace -e "$e" >run.out 2>run.err
	RC=$?
	check_sanitizer run.err "spool probe -p -e $e"
	ERR=$(cat run.err)
	touch STOP
	wait "$pid"
	PRC=$?
	# (with int3 probes, func:*: the threads on their creator's TLS get no
	# syscall user dispatch, whose selector byte is in that TLS; sharing
	# it killed the program with SIGSYS at the detach in about 1 run in 4)
	is "$PRC $(echo $(cat a.out))" "0 ready $native" \
		"attached ($e): the program's output and status as natively" || diag "$ERR" "$(cat a.err)"
	is "$RC" 4 "  spool probe -p exits 4 (events lost, said)" || diag "$ERR"
	like "$ERR" "attached to pid [0-9]+: [0-9]+ probes placed" "  it attached and placed probes"
	like "$ERR" "incomplete: [0-9]+ events lost \\([0-9]+ in threads made by the program's own clone\\)" \
		"  the clone threads' events counted lost"
	unlike "$ERR" "damaged" "  no ring damaged"
done

done_testing
