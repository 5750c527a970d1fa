#!/bin/bash
# SPDX-License-Identifier: MIT
# 145-probe-attach-inline-mask.t - a program that blocks every signal with
# its own `syscall` instruction (rt_sigprocmask in inline assembly, not
# libc's wrapper) after `spool probe -p` attached used to die of SIGTRAP at
# its first int3 probe hit: the agent, dlopen'ed, saw only the calls made
# through libc. Now spool makes each thread it stopped turn Linux syscall
# user dispatch on (the agent's SIGSYS handler keeps SIGTRAP out of the
# kernel's mask, the program's view kept), and at detach turns it off and
# blocks for real what the program blocked. Without dispatch
# (SPOOL_NO_DISPATCH=1 in the program's environment) the program still dies,
# and spool says why (tests/integ/140).
# A thread the program starts after the attach turns dispatch on itself
# (the agent takes pthread_create's GOT slots while int3 probes are in).
# tests/progs/probe_harm: late-inline (the main thread), late-inline-thread
# (a thread started before the attach), late-inline-new (a thread started
# after it), late-inline-busy (inline calls all the time).
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_harm"
plan 16

# attach PROG_MODE DETACH_FIRST: as in 140: run probe_harm 300 MODE, attach
# with int3 exits, let it block every signal, stop it (before or after
# spool detaches). Sets PRC (the program's status), POUT (its output).
attach() {
	local mode=$1 detach_first=$2
	rm -f stop.now go.now prog.out run.out run.err
	"$PROG" 300 "$mode" stop.now go.now >prog.out &
	local pid=$!
	wait_for ready prog.out 15
	timeout -k 5 60 "$SPOOL" probe --exits patch -p "$pid" -d 2s -o a.trace -e 'func:harm_leaf' \
		-e 'func:harm_leaf_i3' >run.out 2>run.err &
	local spid=$!
	wait_for 'probes placed' run.err 20
	touch go.now
	wait_for blocked prog.out 15
	sleep 0.3
	if [ "$detach_first" = 1 ]; then
		wait "$spid"
		RC=$?
		touch stop.now
		wait "$pid"
		PRC=$?
	else
		touch stop.now
		wait "$pid"
		PRC=$?
		wait "$spid"
		RC=$?
	fi
	POUT=$(tr '\n' ' ' <prog.out)
	ERR=$(cat run.err)
	check_sanitizer run.err "spool probe -p ($mode)"
}

for m in late-inline late-inline-thread late-inline-new; do
	attach $m 0
	is "$PRC $POUT" "0 ready blocked sum ok mask ok " \
		"attach, then $m blocks every signal: not killed, its results and mask its own" ||
		diag "$ERR"
	is_rc 0 "  spool probe -p exits 0"
	like "$ERR" "^spool: attached to pid [0-9]+: 5 probes placed" "  the int3 probes were placed"
	attach $m 1
	is "$PRC $POUT" "0 ready blocked sum ok mask ok " \
		"  the same stopped after spool detached: the mask is blocked for real then" ||
		diag "$ERR"
done

# The thread reads its mask back with the inline syscall 1000 times a
# round, under dispatch, while spool detaches: a dispatched call that a
# stop interrupts is made again after it (spool moves the thread back
# onto its syscall instruction), never sent again as a foreign SIGSYS.
# A thread stopped inside the agent's SIGSYS or SIGTRAP handler used to
# come back from it with SIGTRAP unblocked (the mask its frame restores;
# 1 detach in 5): the handlers' shims and spool put it in that frame.
for r in 1 2; do
	attach late-inline-busy 1
	is "$PRC $POUT" "0 ready blocked sum ok mask ok " \
		"busy with inline calls while spool detaches ($r): not killed, mask its own" ||
		diag "$ERR"
done

# Without dispatch the int3 hit after the mask still kills (jump probes
# would not): spool says why instead of hiding it.
SPOOL_NO_DISPATCH=1 attach late-inline 0
ok "without dispatch: spool says the process died of an int3 hit with SIGTRAP blocked" \
	grep -Eq "pid [0-9]+ (ended without running its exit handlers.*SIGTRAP.*int3|was killed by SIGTRAP at an int3 probe)" run.err ||
	diag "$ERR" "program status $PRC"
like "$ERR" "int3 probes are in and syscall user dispatch is not.*killed at its next int3 hit" \
	"  and warned at the attach that dispatch was not there"

done_testing
