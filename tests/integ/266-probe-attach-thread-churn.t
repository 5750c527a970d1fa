#!/bin/bash
# SPDX-License-Identifier: MIT
# 266-probe-attach-thread-churn.t - spool probe -p on a program that makes
# threads all the time, with pthread_create and with its own raw clone
# system call (a child without TLS of its own, sharing its creator's),
# while spool attaches, probes it with jump and int3 probes, and detaches;
# then a second attach, which spool refuses (it attaches to a process
# once). Three programs in turn. Each must end as it does without spool:
# its output, its status, and every byte of its own text (it checksums it
# before "ready" and at the end). spool names what it cannot cover: the
# threads the program made with its own clone (no thread state of spool's
# of their own, no syscall user dispatch), not hidden.
# tests/progs/thread_churn.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/thread_churn"
plan 16

rm -f STOP
"$PROG" STOP >native.out 2>native.err &
npid=$!
wait_for ready native.out 15
sleep 0.5
touch STOP
wait "$npid"
NATIVE="$? $(tr '\n' ' ' <native.out)"
is "$NATIVE" "0 ready pthreads ok raw ok code same " \
	"natively: threads of both kinds compute the right sums, its code unchanged" ||
	diag "$(cat native.err)"

for r in 1 2 3; do
	rm -f STOP prog.out prog.err run.out run.err run2.err
	"$PROG" STOP >prog.out 2>prog.err &
	pid=$!
	wait_for ready prog.out 15
	timeout -k 5 60 "$SPOOL" probe --exits patch -p "$pid" -d 1s -o a.trace \
		-e 'func:churn_leaf' -e 'func:churn_leaf_i3' >run.out 2>run.err
	RC=$?
	ERR=$(cat run.err)
	check_sanitizer run.err "spool probe -p (round $r)"
	timeout -k 5 60 "$SPOOL" probe -p "$pid" -d 1s -o b.trace -e 'func:churn_leaf' \
		>/dev/null 2>run2.err
	RC2=$?
	sleep 0.3
	touch STOP
	wait "$pid"
	PRC=$?
	# 0, or 4 when the trace is incomplete (a raw clone child wrote into
	# its creator's stream): said, never a crash of spool
	ok "round $r: spool probe -p exits 0 or 4 (trace incomplete, said)" \
		test "$RC" = 0 -o "$RC" = 4 || diag "status $RC" "$ERR"
	like "$ERR" "attached to pid [0-9]+: [0-9]+ probes placed" "  it attached and placed probes"
	like "$ERR" "made [0-9]+ threads? with its own clone system call|share.? a thread pointer" \
		"  it names the threads made by the program's own clone"
	ok "  a second attach is refused, and says why" \
		grep -q "spool attaches to a process once" run2.err ||
		diag "status $RC2" "$(cat run2.err)"
	is "$PRC $(tr '\n' ' ' <prog.out)" "$NATIVE" \
		"  the program's output and status as natively, its code byte-identical" ||
		diag "$ERR" "$(cat prog.err)"
done

done_testing
