#!/bin/bash
# SPDX-License-Identifier: MIT
# 118-record-aslr.t - a recording or a replay that cannot turn
# address-space randomization off says so, and a replay that then fails
# names it as the cause. nopersona runs spool under a seccomp filter that
# refuses personality(ADDR_NO_RANDOMIZE) with EPERM, as a container's
# default profile does. rr_layout dereferences a heap pointer that came
# back through a pipe: at other addresses the recorded pointer is not valid.
# It prints its addresses first: a replay that checks what each write
# writes (372) stops at that line, where the addresses differ, before the
# crash; either is the divergence, with randomization named as its cause.
. "$(dirname "$0")/lib.sh"

plan 8

PROG="$PROGS/rr_layout"
NOPERS="$PROGS/nopersona"

if ! "$NOPERS" true 2>/dev/null; then
	skip 8 "seccomp filters are not available here"
	done_testing
	exit 0
fi

timeout -k 10 "$T_TIMEOUT" "$NOPERS" "$SPOOL" record -q -o aslr.trace -- "$PROG" \
	>aslr.rec.out 2>aslr.rec.err
rc=$?
check_sanitizer aslr.rec.err "spool record"
is "$rc" 0 "recorded under a filter that refuses ADDR_NO_RANDOMIZE" || diag "$(cat aslr.rec.err)"
like "$(cat aslr.rec.err)" "the program ran with address-space randomization \(personality ADDR_NO_RANDOMIZE refused: Operation not permitted\)" \
	"spool record says the program ran with randomization, and why"
ok "the recording notes it (aslr=on)" grep -qx 'aslr=on' aslr.trace/.spool/record

spool_run replay -q aslr.trace
like "$ERR" "this recording was made with address-space randomization" \
	"its replay says the recording was made with randomization"
like "$RC $(tr '\n' ' ' <run.err)" "^3 .*replay diverged(: the program was killed by signal 11 .*the recorded run (was not|exited with status 0)| in thread 0 at its event [0-9]+: the write's bytes differ)" \
	"the replay at other addresses is a divergence (status 3): other addresses printed, or the crash on the recorded pointer"
like "$ERR" "address-space randomization: a program that keeps pointers in what it reads .* the likely cause here" \
	"... and randomization is named as its likely cause"

# A recording with a fixed layout, replayed where the layout cannot be fixed.
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o fixed.trace -- "$PROG" >fixed.rec.out 2>fixed.rec.err
timeout -k 10 "$T_TIMEOUT" "$NOPERS" "$SPOOL" replay -q fixed.trace >run.out 2>run.err
rc=$?
check_sanitizer run.err "spool replay"
like "$(cat run.err)" "the replay runs with address-space randomization \(personality ADDR_NO_RANDOMIZE refused: Operation not permitted\)" \
	"a replay that cannot fix the layout says so"
like "$rc $(tr '\n' ' ' <run.err)" "^3 .*(killed by signal 11|the write's bytes differ).*the likely cause here" \
	"... and names it when the replay then diverges"

done_testing
