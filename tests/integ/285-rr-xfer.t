#!/bin/bash
# SPDX-License-Identifier: MIT
# 285-rr-xfer.t - what a program sees of the bytes splice, tee,
# copy_file_range and sendfile move is recorded and replayed
# (doc/record.md "sendfile, splice, tee, copy_file_range"):
# tests/progs/rr_xfer splices a file into a pipe of its own, tees it into
# a second pipe, reads both back, copies the file with copy_file_range and
# reads the copy back, then sendfiles the file to stdout. Recorded in
# serial and in sync mode, the file is then changed and the replay must
# still print the recorded counts and checksums and sendfile's recorded
# bytes (they come from the log, not from the file as it is now; before,
# sendfile's bytes were read again from the file as it was then). Bytes
# spliced from a pipe (stdin) to a stdout that is a file are in the log
# too (read back from that file): the replay, with nothing on its stdin,
# writes them (before, its stdout stayed empty).
. "$(dirname "$0")/lib.sh"

plan 11

P="$PROGS/rr_xfer"
seq 1 3000 >in.txt
cp in.txt in.orig

for m in serial sync; do
	cp in.orig in.txt
	spool_run record -q --mode "$m" -o "x$m.trace" -- "$P" file in.txt
	is "$RC" 0 "$m: rr_xfer file recorded"
	cp run.out rec.out
	# what the program read and counted: the lines before sendfile's bytes
	sed -n '/^copy: /q;p' rec.out >rec.seen
	seq 7 2000 >in.txt
	spool_run replay -q "x$m.trace"
	sed -n '/^copy: /q;p' run.out >rep.seen
	is "$RC" 0 "  replayed with the file changed: exit 0"
	if [ -s rec.seen ] && grep -q '^pipe: 13893 bytes' rec.seen && cmp -s rec.seen rep.seen; then
		pass "  the splice, tee and copy_file_range counts and the bytes read back are the recorded ones"
	else
		fail "  the splice, tee and copy_file_range counts and the bytes read back are the recorded ones"
		diag "$(diff rec.seen rep.seen | head -n 8)"
	fi
	if [ "$RC" = 0 ] && cmp -s rec.out run.out; then
		pass "  and its stdout is the recording's, sendfile's bytes too"
	else
		fail "  and its stdout is the recording's, sendfile's bytes too"
		diag "$(diff rec.out run.out | head -n 8)"
	fi
done

seq 1 20000 >big.txt
cat big.txt | timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o xp.trace -- "$P" stdin >rec.out 2>rec.err
RC=$?
is "$RC" 0 "splice of a piped stdin to stdout recorded"
RUN_STDIN=/dev/null spool_run replay -q xp.trace
if [ "$RC" = 0 ] && grep -q "^spliced $(wc -c <big.txt) bytes" run.err; then
	pass "  the replay gets the recorded counts, with nothing on its stdin"
else
	fail "  the replay gets the recorded counts, with nothing on its stdin"
	show_run
fi
ok "  and its stdout holds the spliced bytes ($(wc -c <rec.out) recorded)" cmp -s rec.out run.out
done_testing
