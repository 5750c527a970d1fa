#!/bin/bash
# SPDX-License-Identifier: MIT
# 247-rr-popen.t - popen's streams go through the agent like fopen's
# (agent_rr_stdio_adopt): rr_popen reads a popen'ed command's random output
# with fgets, writes a line to a popen'ed cat, and reads an fopencookie
# stream whose read function (the program's own code) calls read(). A
# replay of the whole tree, and a replay of the reader alone (--pid: no
# command runs) print the recorded bytes; the --pid replay lacks only the
# line cat itself printed. Before, --pid printed no popen line (glibc read
# the pipe of a command that did not run) and, in serial mode, was killed
# by SIGPIPE writing to cat.
. "$(dirname "$0")/lib.sh"

plan 12

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$PROGS/rr_popen"
	is_rc 0 "$mode: record of rr_popen exits 0"
	cp run.out "$mode.rec.out"
	is "$(grep -c '^popen read:\|^cookie read:' run.out)" 3 "$mode: it read 2 lines from popen, 1 from its cookie stream"
	root=$(sed -nE 's/^parent ([0-9]+) starts.*/\1/p' run.out)

	spool_run replay -q "$mode.trace"
	ok "$mode: the whole tree replays with the recorded output" cmp -s run.out "$mode.rec.out" ||
		diag "$(diff "$mode.rec.out" run.out)"

	spool_run replay -q --pid "$root" "$mode.trace"
	is_rc 0 "$mode: --pid of the reader (no command runs) exits 0"
	grep -v "^a line through popen's cat" "$mode.rec.out" >"$mode.want"
	ok "$mode:   with the recorded popen and cookie lines (all but cat's own)" \
		cmp -s run.out "$mode.want" || diag "$(diff "$mode.want" run.out)"
	unlike "$ERR" 'signal 13|Broken pipe' "$mode:   no SIGPIPE writing to the cat that does not run"
done
done_testing
