#!/bin/bash
# SPDX-License-Identifier: MIT
# 372-rr-output-check.t - a replay checks what each write writes (issue 13,
# and issue 12 "never hide"): a recording keeps a hash of the bytes of every
# write and writev, and a replay that would write other bytes stops there as
# a divergence (status 3) with the call, its length and both hashes, and
# advice naming what spool does not record. Before, a replay whose program
# computed other bytes from something unrecorded printed them with status
# 0 (gpg --gen-random, which mixes in rdrand: tests/real/138). Here the
# unrecorded input is a file read through mmap, changed after the
# recording; unchanged, the replays are identical (no false divergence),
# in serial and sync mode. A replay the user changed (another command
# line) is not checked.
. "$(dirname "$0")/lib.sh"

plan 15

P="$PROGS/rr_mmapcat"
printf 'abcdefghijklmnopqrstuvwxyz0123456789\n' >data.txt

for mode in serial sync; do
	cp data.txt in.txt
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P" in.txt
	is_rc 0 "$mode: record exits 0"
	cp run.out "$mode.out"
	replays_same 2 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 2 "$mode: with the file unchanged, 2 replays of 2 print the recorded output"

	# the same length, other bytes: the calls and their results match
	printf 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\n' >in.txt
	spool_run replay -q "$mode.trace"
	is_rc 3 "$mode: with the file changed under mmap, the replay stops as diverged (status 3)"
	like "$ERR" "replay diverged in thread 0 at its event [0-9]+: the write's bytes differ from the recorded ones" \
		"  saying the write's bytes differ"
	like "$ERR" "recorded: writev\(fd 1\) of 43 bytes, hash 0x[0-9a-f]+" "  naming the call, its length and the recorded hash"
	like "$ERR" "mmap" "  and advice that names a file read through mmap"
	is "$OUT" "first line is constant" "  the replay wrote what the recording wrote up to there, and not the other bytes"
done

# A replay with another command line is a run the user changed: not
# checked (it stops only at a call that differs, as before), so it prints
# what the other file holds.
cp data.txt in.txt
printf 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\n' >other.txt
spool_run replay -q serial.trace -- "$P" other.txt
is "$RC $(tail -n 1 run.out)" "0 ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" \
	"a replay with another command line is not checked: it prints the other file, status 0"

done_testing
