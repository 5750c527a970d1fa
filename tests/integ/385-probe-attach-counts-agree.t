#!/bin/bash
# SPDX-License-Identifier: MIT
# 385-probe-attach-counts-agree.t - spool probe -p says how many probes it
# planned ("N probes (J jump, I int3)") and then how many it placed
# ("attached to pid P: N probes placed"): the two counts are of the same
# thing. A probe that runs in another probe's trampoline or int3 slot
# (--list: method "shared", the args: probe at live_callfirst's ret here)
# is not one more probe: the attach counted it, restic's attach said "22
# probes", then "23 probes placed" (tests/real/147). When fewer are placed
# than planned, the line says "K of N probes placed".
. "$(dirname "$0")/lib.sh"

live_prog
plan 5

SPECS=(-e func:live_callfirst -e 'args:live_callfirst:long->long' -e func:live_work)
spool_run probe --list "${SPECS[@]}" "$PROG"
like "$OUT" " shared " "--list: one probe runs in another's slot (shared)"
listed=$(sed -n 's/^\([0-9]*\) probes: .*/\1/p' <<<"$OUT")

live_start "$PROG"
timeout -k 10 "$T_TIMEOUT" "$SPOOL" probe -p "$LIVE_PID" -d 1s -o at.trace "${SPECS[@]}" >run.out 2>run.err
RC=$?
ERR=$(cat run.err)
check_sanitizer run.err "spool probe -p"
is_rc 0 "spool probe -p ... -d 1s: attached, detached, exit 0"
planned=$(sed -n 's/^spool: \([0-9]*\) probes (.*/\1/p' run.err)
placed=$(sed -n 's/^spool: attached to pid [0-9]*: \([0-9]*\) probes placed.*/\1/p' run.err)
ok "the probes planned ($planned) are the probes placed ($placed)" \
	test -n "$planned" -a "$planned" = "$placed" || diag "$(head -4 run.err)"
is "$planned" "$listed" "  and --list's count ($listed)"
live_stop

done_testing
