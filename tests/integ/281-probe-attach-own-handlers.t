#!/bin/bash
# SPDX-License-Identifier: MIT
# 281-probe-attach-own-handlers.t - spool probe -p on a program with
# signal handlers of its own (tests/progs/sig_own). After spool attached
# with int3 probes, a thread blocks SIGTRAP (spool keeps it out of the
# kernel's mask, the program's view kept) and enters its own SIGUSR1
# handler, where it stays, calling probed functions, while spool detaches.
# The kernel saved its mask in the handler's frame without SIGTRAP; the
# handler's return used to install that, so the thread went on with
# SIGTRAP unblocked though it had blocked it. Now it gets back exactly
# the mask it had. Meanwhile the main thread takes its own SIGSEGV (a page
# it protected) and its own SIGTRAP (raise) every round, across the
# attach, the probing and the detach: each handler must run once per
# round. Three rounds; output and status as natively. (Status 70, the
# program's SIGSEGV handler finding a fault not on its page, was its own
# SIGSEGV held back at the attach and delivered at the detach with the
# siginfo of spool's call's end, address 0: tests/integ/299.)
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/sig_own"
plan 16

rm -f STOP GO
"$PROG" STOP GO >native.out 2>native.err &
npid=$!
wait_for ready native.out 15
touch GO
wait_for inside native.out 15
touch STOP
wait "$npid"
NATIVE="$? $(echo $(cat native.out))"
is "$NATIVE" "0 ready inside segv ok trap ok sums ok mask same" \
	"natively: its handlers run once per round, the thread's mask is the same after its handler" ||
	diag "$(cat native.err)"

for r in 1 2 3; do
	rm -f STOP GO prog.out run.out run.err
	"$PROG" STOP GO >prog.out 2>prog.err &
	pid=$!
	wait_for ready prog.out 15
	timeout -k 5 60 "$SPOOL" probe --exits patch -p "$pid" -d 2s -o a.trace \
		-e 'func:sig_leaf' -e 'func:sig_leaf_i3' >run.out 2>run.err &
	spid=$!
	wait_for 'probes placed' run.err 20
	touch GO
	wait_for inside prog.out 15
	wait "$spid"
	RC=$?
	check_sanitizer run.err "spool probe -p (round $r)"
	ERR=$(cat run.err)
	touch STOP
	wait "$pid"
	PRC=$?
	like "$ERR" "attached to pid [0-9]+: [0-9]+ probes placed" "round $r: spool attached" ||
		diag "$ERR"
	like "$ERR" "[0-9]+ probes \\([0-9]+ jump, [1-9][0-9]* int3\\)" "  int3 probes among its probes"
	ok "  spool probe -p exits 0, detached" test "$RC" = 0 -a -n "$(grep detached run.err)" ||
		diag "status $RC" "$ERR"
	unlike "$ERR" "int3 probes not placed" "  every int3 probe placed (the thread blocked SIGTRAP after)"
	is "$PRC $(echo $(cat prog.out))" "$NATIVE" \
		"  output and status as natively: the thread's mask the same after its own handler" ||
		diag "$ERR" "$(cat prog.err)"
done

done_testing
