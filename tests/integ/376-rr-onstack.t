#!/bin/bash
# SPDX-License-Identifier: MIT
# 376-rr-onstack.t - SA_ONSTACK handlers of asynchronous signals under
# spool record and replay (doc/record.md, "Signals"; tests/progs/rr_onstack):
# the agent runs the program's handler itself at a delivery point, and it
# must run on the alternate stack the thread set, as the kernel runs it, in
# the main thread and in a second one, with the stack malloc'd, a local
# array of main (inside the thread's own stack: the stubs' zeroing must not
# reach the live frames below it) or set with SS_AUTODISARM (disabled while
# the handler runs); a handler without SA_ONSTACK runs on the normal stack.
# Before, every handler ran on the normal stack under spool (apache2 and
# Go's runtime check where theirs run): "on the alternate stack 0".
. "$(dirname "$0")/lib.sh"

WHERES="heap local disarm"
plan 20

PROG="$PROGS/rr_onstack"

for where in $WHERES; do
	"$PROG" "$where" >"native-$where.out"
done
like "$(cat native-heap.out)" 'main raise SIGUSR1 \(SA_ONSTACK\): ran 1, on the alternate stack 1, SS_ONSTACK 1' \
	"alone: the kernel runs the SA_ONSTACK handler on the alternate stack"

for mode in serial sync; do
	for where in $WHERES; do
		spool_run record -q --mode "$mode" -o "$mode-$where.trace" -- "$PROG" "$where"
		is_rc 0 "$mode, $where: recorded, exit 0"
		if cmp -s run.out "native-$where.out"; then
			pass "$mode, $where: each handler ran on the stack it runs on without spool"
		else
			fail "$mode, $where: each handler ran on the stack it runs on without spool"
			diag "$(diff "native-$where.out" run.out)"
		fi
		replays_same 2 0 "native-$where.out" -q -o "$mode-$where.rep" "$mode-$where.trace"
		is "$SAME" 2 "$mode, $where: 2 replays of 2 the same"
	done
done
# (and the disarmed stack, as the kernel does it)
like "$(cat native-disarm.out)" 'main kill SIGUSR1 \(SA_ONSTACK\): ran 1, on the alternate stack 1, SS_ONSTACK 0, disabled while it ran' \
	"alone: SS_AUTODISARM disables the stack while the handler runs"
done_testing
