#!/bin/bash
# SPDX-License-Identifier: MIT
# 148-pv-splice.t - Debian's pv (pipe viewer) copying its stdin, a pipe (cat), to
# its stdout with splice(), under spool record and replay (serial and
# sync), with spool's stdout a pipe and a terminal (script(1)). The bytes
# go from pipe to pipe in the kernel, in no file a recording could read
# back: every replay wrote nothing (0 bytes where pv had copied 108,894).
# The recording now keeps them (tests/integ/378-rr-stdout-moves.t) and
# each replay, run with no input at all, writes them again.
. "$(dirname "$0")/lib.sh"
need_progs pv
plan 14

seq 1 20000 >nums.txt
HAVE_SCRIPT=0
command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1 && HAVE_SCRIPT=1

for mode in serial sync; do
	cat nums.txt | timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode "$mode" -o "$mode.trace" \
		-- pv -q 2>run.err | cat >"$mode.rec.out"
	RC=${PIPESTATUS[1]}
	check_sanitizer run.err "spool record pv ($mode)"
	is_rc 0 "$mode: pv recorded, exit 0"
	ok "$mode: pv copied its input" cmp -s "$mode.rec.out" nums.txt
	SAME=0
	for i in 1 2 3; do
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q -o "$mode.rep$i" "$mode.trace" \
			</dev/null 2>run.err | cat >run.out
		RC=${PIPESTATUS[0]}
		check_sanitizer run.err "spool replay pv ($mode)"
		if [ "$RC" = 0 ] && cmp -s run.out nums.txt; then
			SAME=$((SAME + 1))
		else
			show_run
			diag "replay $i wrote $(wc -c <run.out) bytes of $(wc -c <nums.txt)"
		fi
	done
	is "$SAME" 3 "$mode: 3 replays (no input) write what pv copied"
	if [ "$HAVE_SCRIPT" = 0 ]; then
		skip 4 "$mode: script(1) cannot make a terminal here"
		continue
	fi
	script -qec "cat nums.txt | timeout -k 10 $T_TIMEOUT $SPOOL record -q --mode $mode -o $mode.tty.trace -- pv -q 2>run.err" \
		/dev/null </dev/null >"$mode.tty.rec"
	is "$?" 0 "$mode, to a terminal: pv recorded, exit 0"
	ok "$mode, to a terminal: pv copied its input" bash -c "tr -d '\\r' <$mode.tty.rec | cmp -s - nums.txt"
	script -qec "timeout -k 10 $T_TIMEOUT $SPOOL replay -q -o $mode.tty.rep $mode.tty.trace 2>run.err" \
		/dev/null </dev/null >run.out
	is "$?" 0 "$mode, to a terminal: replayed, exit 0"
	ok "$mode, to a terminal: the replay shows what the recording showed" cmp -s run.out "$mode.tty.rec"
done
done_testing
