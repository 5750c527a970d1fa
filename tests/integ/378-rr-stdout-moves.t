#!/bin/bash
# SPDX-License-Identifier: MIT
# 378-rr-stdout-moves.t - output that does not pass through write(): bytes
# moved from a pipe to stdout with splice(), and a stdout the program moved
# (doc/record.md, "sendfile, splice, tee, copy_file_range";
# tests/progs/rr_splice_out).
#   splice: a thread writes 40 lines into a pipe, main splice()s them to
#     fd 1, where spool's stdout is a pipe or a terminal (script(1)). The
#     bytes are in no file a recording can read back: every replay wrote
#     only the program's own printf lines, none of the 990 spliced bytes.
#     The recording now keeps them (tee into a private pipe before the
#     splice) and a replay writes them again.
#   socket: the same through a socketpair with recv and write (passed
#     before too: the reads are recorded).
#   fopen, freopen, dup2: stdout moved to a file after a first line; the
#     replay prints the first line and writes the file again, the same
#     (passed before too).
# Serial and sync mode, 2 replays each.
. "$(dirname "$0")/lib.sh"

plan 38

PROG="$PROGS/rr_splice_out"
HAVE_SCRIPT=0
command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1 && HAVE_SCRIPT=1

# piped OUT spool ARGS...: spool with its stdout a pipe (into OUT); $RC
piped() {
	local out=$1
	shift
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" "$@" </dev/null 2>run.err | cat >"$out"
	RC=${PIPESTATUS[0]}
	check_sanitizer run.err "spool $*"
}

# on_tty OUT spool ARGS...: spool with its stdout a terminal (script(1));
# what the terminal got in OUT; $RC
on_tty() {
	local out=$1
	shift
	script -qec "timeout -k 10 $T_TIMEOUT $SPOOL $* 2>run.err" /dev/null </dev/null >"$out"
	RC=$?
	check_sanitizer run.err "spool $*"
}

for mode in serial sync; do
	for how in splice socket; do
		tr="$how-$mode"
		piped "$tr.rec.out" record -q --mode "$mode" -o "$tr.trace" -- "$PROG" "$how"
		is_rc 0 "$mode, $how, to a pipe: recorded, exit 0"
		like "$(tail -n 2 "$tr.rec.out" | tr '\n' ' ')" \
			"line 39 through the (pipe|socket) [0-9]+ bytes moved, the last call returned 0" \
			"$mode, $how, to a pipe: the recording wrote every line"
		SAME=0
		for i in 1 2; do
			piped run.out replay -q -o "$tr.rep$i" "$tr.trace"
			if [ "$RC" = 0 ] && cmp -s run.out "$tr.rec.out"; then
				SAME=$((SAME + 1))
			else
				show_run
				diag "$(diff "$tr.rec.out" run.out | head -n 10)"
			fi
		done
		is "$SAME" 2 "$mode, $how, to a pipe: 2 replays write what the recording wrote"
		if [ "$HAVE_SCRIPT" = 0 ]; then
			skip 2 "$mode, $how, to a terminal: script(1) cannot make one here"
			continue
		fi
		on_tty "$tr.tty.rec" record -q --mode "$mode" -o "$tr.tty.trace" -- "$PROG" "$how"
		is_rc 0 "$mode, $how, to a terminal: recorded, exit 0"
		on_tty run.out replay -q -o "$tr.tty.rep" "$tr.tty.trace"
		if [ "$RC" = 0 ] && cmp -s run.out "$tr.tty.rec" && grep -q 'line 39 through' run.out; then
			pass "$mode, $how, to a terminal: a replay shows what the recording showed"
		else
			fail "$mode, $how, to a terminal: a replay shows what the recording showed"
			show_run
			diag "$(diff "$tr.tty.rec" run.out | head -n 10)"
		fi
	done
	for how in fopen freopen dup2; do
		tr="$how-$mode"
		mkdir -p "$tr.wd"
		spool_run record -q --mode "$mode" -o "$tr.trace" -- "$PROG" "$how" "$PWD/$tr.wd/moved.txt"
		is_rc 0 "$mode, $how: recorded, exit 0"
		cp run.out "$tr.rec.out"
		mv "$tr.wd/moved.txt" "$tr.rec.file"
		is "$(cat "$tr.rec.file" | wc -l)" 5 "$mode, $how: the 5 lines went to the file"
		SAME=0
		for i in 1 2; do
			rm -f "$tr.wd/moved.txt"
			spool_run replay -q -o "$tr.rep$i" "$tr.trace"
			if [ "$RC" = 0 ] && cmp -s run.out "$tr.rec.out" && cmp -s "$tr.wd/moved.txt" "$tr.rec.file"; then
				SAME=$((SAME + 1))
			else
				show_run
				diag "$(diff "$tr.rec.file" "$tr.wd/moved.txt" | head -n 10)"
			fi
		done
		is "$SAME" 2 "$mode, $how: 2 replays print the first line and write the file again"
	done
done
done_testing
