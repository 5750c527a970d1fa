#!/bin/bash
# SPDX-License-Identifier: MIT
# 228-probe-handler-mask.t - while int3 probes are in, SIGTRAP is never
# blocked for real (a blocked int3 trap kills), so the agent strips it from
# a handler's sa_mask. Attached (spool probe -p), a handler installed with
# a full sa_mask then read its own mask and saw SIGTRAP unblocked, where
# the kernel would have blocked it: "handler mask BAD: SIGTRAP unblocked"
# from tests/progs/sigmask_view. The handler now runs behind the agent's
# wrapper: it sees its sa_mask, its ucontext's uc_sigmask is the mask the
# program had (SIGTRAP in it when main blocked it), and main reads back the
# mask it set after the handlers return. The handler itself hits an int3
# probe: not killed. Installed after the attach, before it, and with
# SIGTRAP blocked by main.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/sigmask_view"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 10

native=$(rm -f st gn; touch gn st; "$PROG" st gn | tr '\n' ' ')
is "$native" "ready handled 5 handler mask ok " "natively, the handler sees its sa_mask"

# attach MODE: run sigmask_view, attach with int3 probes, let it raise.
# Sets PRC, POUT; spool's output in run.*.
attach() {
	local mode=$1 i
	rm -f st gn prog.out run.out run.err
	"$PROG" st gn $mode >prog.out &
	local pid=$!
	wait_for ready prog.out 15
	timeout -k 5 60 "$SPOOL" probe --exits patch -p "$pid" -d 2s -o a.trace \
		-e 'func:view_leaf_i3' >run.out 2>run.err &
	local spid=$!
	wait_for 'probes placed' run.err 20
	touch gn
	wait_for 'handler mask' prog.out 15
	touch st
	wait "$pid"
	PRC=$?
	wait "$spid"
	RC=$?
	POUT=$(tr '\n' ' ' <prog.out)
	ERR=$(cat run.err)
	check_sanitizer run.err "spool probe -p ($mode)"
}

for m in late early blocked; do
	attach $m
	is "$PRC $POUT" "0 ready handled 5 handler mask ok " \
		"attached ($m): not killed, the handler's mask and uc_sigmask its own" || diag "$ERR"
	like "$ERR" "^spool: [0-9]+ probes \\([0-9]+ jump, [1-9][0-9]* int3\\)" "  with int3 probes"
	n=$(cat run.out run.err | grep -oE '^view_leaf_i3 +[0-9]+' | awk '{ print $2 }' | head -n 1)
	num_cmp "${n:-0}" -gt 0 "  which were hit"
done

done_testing
