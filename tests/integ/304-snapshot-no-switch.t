#!/bin/bash
# SPDX-License-Identifier: MIT
# 304-snapshot-no-switch.t - a program that never switches the run token
# gets snapshots too (doc/record.md "Snapshots"): one thread alone
# (rr_solo: clock reads and naps between its lines), and a worker that runs
# alone while main waits in its join (rr_goto 1). Snapshots are due by
# time and taken at the holder's passes through the scheduler's slow path,
# which a thread alone reaches every few hundred switch points; before,
# they were looked for at switches only and such a program had none. All
# its snapshots are at one schedule event; spool replay --goto that event
# starts from the latest of them and prints the recording's tail.
. "$(dirname "$0")/lib.sh"

plan 10

# snaps TRACE: the snapshot rows of spool info (snap event ...)
snaps() {
	"$SPOOL" info "$1" 2>/dev/null | sed -n '/^snapshots:/,/^[a-z]/p' | grep -E '^ +[0-9]+ '
}

# case NAME CMD...: record with a snapshot every 300 ms (3 checks), then
# --goto the last snapshot's event (2 checks)
case_of() {
	local name="$1" n e last rc
	shift
	spool_run record --snap-period 300ms -o "$name.trace" -- "$@"
	is_rc 0 "$name: record exits 0"
	cp run.out "$name.rec"
	n=$(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1)
	num_cmp "${n:-999}" -le 3 "$name: ... it made no switch while it ran (${n:-no} schedule events)"
	n=$(snaps "$name.trace" | wc -l)
	num_cmp "$n" -ge 2 "$name: ... and has snapshots all the same ($n, one every 300 ms of its run)"
	if [ "$n" -lt 1 ]; then
		skip 2 "$name: no snapshot to start from"
		return
	fi
	last=$(snaps "$name.trace" | tail -n 1 | awk '{ print $1 }')
	e=$(snaps "$name.trace" | tail -n 1 | awk '{ print $2 }')
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$e" "$name.trace" >"$name.out" 2>"$name.err"
	rc=$?
	check_sanitizer "$name.err" "spool replay --goto $e"
	ok_goto() {
		[ "$rc" = 0 ] && grep -Eq "^spool: started from snapshot $last at schedule event $e " "$name.err"
	}
	ok "$name: --goto $e exits 0, from the latest snapshot at that event ($last)" ok_goto ||
		diag "$(head -5 "$name.err")"
	tail_ok "$name.rec" "$name.out"
	is "$?" 0 "$name: ... and prints the recording's tail byte for byte ($(wc -l <"$name.out") of $(wc -l <"$name.rec") lines)"
}

case_of solo "$PROGS/rr_solo" 20000 10
case_of alone "$PROGS/rr_goto" 1 20000

done_testing
