#!/bin/bash
# SPDX-License-Identifier: MIT
# 246-rr-splice.t - sendfile, splice, tee and copy_file_range are recorded
# and replayed from the log (issue 13): rr_splice's child writes a line
# into a pipe, the parent tee's and splices it on, sendfile's a file to
# its stdout and copy_file_range's it into another file. A whole replay
# and a replay of the parent alone (--pid: its child does not run, so no
# one writes the pipe) print the recorded results and write the copy.
# They used to run for real: with --pid, tee and splice found the pipe
# empty and returned 0, and sendfile to the replay's stdout failed.
. "$(dirname "$0")/lib.sh"

plan 14

printf 'the input file, forty bytes of it......\n' >in.txt
for mode in serial sync; do
	rm -f out.txt
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$PROGS/rr_splice" in.txt out.txt
	is_rc 0 "$mode: record of rr_splice exits 0"
	cp run.out "$mode.rec.out"
	like "$(cat run.out)" 'tee 22 splice 22' "$mode: the recorded tee and splice moved the child's line"
	root=$(sed -nE 's/^parent ([0-9]+) starts.*/\1/p' run.out)

	rm -f out.txt
	spool_run replay -q "$mode.trace"
	ok "$mode: the whole tree replays with the recorded output" cmp -s run.out "$mode.rec.out" ||
		diag "$(diff "$mode.rec.out" run.out)"
	ok "$mode:   and copy_file_range's copy is written" cmp -s in.txt out.txt

	rm -f out.txt
	spool_run replay -q --pid "$root" "$mode.trace"
	is_rc 0 "$mode: --pid of the parent (its child does not run) exits 0"
	ok "$mode:   with the recorded output: tee, splice, sendfile from the log" \
		cmp -s run.out "$mode.rec.out" || diag "$(diff "$mode.rec.out" run.out)"
	ok "$mode:   and copy_file_range's copy is written" cmp -s in.txt out.txt
done
done_testing
