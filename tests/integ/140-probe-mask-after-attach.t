#!/bin/bash
# SPDX-License-Identifier: MIT
# 140-probe-mask-after-attach.t - a thread that blocks SIGTRAP after
# `spool probe -p` attached was killed by its first int3 probe hit (the
# kernel kills a process whose blocked synchronous SIGTRAP fires), and spool
# said only "pid N exited". The agent, dlopen'ed, is not the program's
# pthread_sigmask: now attach mode points the modules' GOT slots of
# pthread_sigmask and sigprocmask at the agent's (src/agent/agent_probe_got.c),
# which keep SIGTRAP out of the kernel's mask, and at detach spool blocks it
# for real in the threads that asked. A mask set by the program's own
# syscall instruction is seen through syscall user dispatch, which spool
# has each stopped thread turn on (tests/integ/145); without dispatch that
# program still dies of its first hit in attach mode, and spool says the
# process ended without exiting and what that means. In launch mode the agent turns syscall user dispatch on
# while int3 probes are in, so that call reaches it too; without dispatch
# spool says the program died of SIGTRAP at an int3 probe.
# tests/progs/probe_harm: late (pthread_sigmask after attach), late-inline,
# late-handler, early-handler, late-suspend, late-trap, inline.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_harm"
plan 21

# attach PROG_MODE DETACH_FIRST: run probe_harm 300 MODE, attach, let it
# block every signal, stop it (before or after spool detaches). Sets PRC
# (the program's status), POUT (its output); spool's in run.*.
attach() {
	local mode=$1 detach_first=$2 i
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

attach late 0
is "$PRC" 0 "attach, then pthread_sigmask(all): the int3-probed program is not killed" ||
	diag "$ERR"
is "$POUT" "ready blocked sum ok mask ok " "  its results and the mask it reads back are its own"
is_rc 0 "  spool probe -p exits 0"
like "$ERR" "^spool: attached to pid [0-9]+: 5 probes placed" "  every probe, int3 ones too, was placed"

attach late 1
is "$PRC $POUT" "0 ready blocked sum ok mask ok " \
	"the same, stopped after spool detached: SIGTRAP is blocked for real then (mask ok)" ||
	diag "$ERR"

# An inline syscall's mask reaches the agent through syscall user dispatch,
# which spool turns on in each thread (tests/integ/145); without it (the
# program's SPOOL_NO_DISPATCH=1, or a kernel before 5.11) it dies:
SPOOL_NO_DISPATCH=1 attach late-inline 0
ok "attach without dispatch, then an inline syscall blocks SIGTRAP: spool says the process died without exiting and why" \
	grep -Eq "pid [0-9]+ (ended without running its exit handlers.*SIGTRAP.*int3|was killed by SIGTRAP at an int3 probe)" run.err ||
	diag "$ERR" "program status $PRC"
like "$ERR" "trace holds every event recorded before" "  and that the trace keeps what was recorded"

# The other ways a mask blocks SIGTRAP after the attach, each of which
# killed the program at its first int3 hit (a handler installed with a full
# sa_mask, before or after the attach; a handler run during sigsuspend with
# every other signal blocked), and signal(SIGTRAP), which replaced the
# agent's handler (the next hit ran the rest of an int3'd instruction): the
# agent's twins of sigaction, signal, sigsuspend, ppoll, pselect and
# epoll_pwait take those GOT slots too, and handlers installed before the
# attach lose SIGTRAP from their sa_mask until the detach.
for m in late-handler early-handler late-suspend late-trap; do
	attach $m 0
	is "$PRC $POUT" "0 ready blocked sum ok mask ok " \
		"attach, then $m: not killed, its results, masks and handlers its own" ||
		diag "$ERR"
	attach $m 1
	is "$PRC $POUT" "0 ready blocked sum ok mask ok " \
		"  the same stopped after spool detached (sa_mask given back)" || diag "$ERR"
done

# Launch mode (--exits patch: harm_leaf_i3's exits are int3 probes; by
# default they go through the return address and need no SIGTRAP):
# syscall user dispatch is on while int3 probes are in, so
# the program's own rt_sigprocmask reaches the agent too.
native=$("$PROG" 100 inline)
is "$native" "$(printf 'sum 79300\nmask ok')" "inline mask natively: the program runs to its end"
spool_run probe -q --exits patch -o l.trace -e 'func:harm_leaf_i3' -- "$PROG" 100 inline
is "$RC $(echo $OUT)" "0 $(echo $native)" \
	"launch, an inline syscall blocks every signal: not killed, its mask read back as set"
native=$("$PROG" 100 fork-inline)
spool_run probe -q --exits patch -o f.trace -e 'func:harm_leaf_i3' -- "$PROG" 100 fork-inline
is "$RC $(echo $OUT)" "0 $(echo $native)" \
	"  the same in a fork child (dispatch is turned on again there)"
# Without dispatch (an older kernel; SPOOL_NO_DISPATCH=1) it dies of its
# first hit, and spool, its parent, says so.
export SPOOL_NO_DISPATCH=1
spool_run probe -q --exits patch -o l0.trace -e 'func:harm_leaf_i3' -- "$PROG" 100 inline
unset SPOOL_NO_DISPATCH
is_rc 133 "  without dispatch: spool exits with the program's 133"
like "$ERR" "killed by SIGTRAP with 2 int3 probes in place: most likely a thread had SIGTRAP blocked" \
	"  and says the SIGTRAP was an int3 probe's"
spool_run probe -q --exits patch -o l2.trace -e 'func:harm_leaf_i3' -- "$PROG" 100 raw
is_rc 0 "the same mask through syscall(): the agent keeps SIGTRAP out, exit 0"

done_testing
