#!/bin/bash
# SPDX-License-Identifier: MIT
# 347-goto-open-after.t - a file opened after a snapshot gets its recorded
# descriptor number in a replay from that snapshot (doc/record.md, "Replay
# from a snapshot"). The snapshot's own image file was open in the copy
# that wrote it, at the program's lowest free number, and was listed with
# the program's descriptors: the restore put a /dev/null stand-in there,
# the program's next open got the number after it, and its write was "the
# same call on another descriptor number", a divergence (Debian's ruby
# writing a file at the end of a threaded script; tests/real/142-ruby-all.t).
# rr_entropy_open: 4 threads on a mutex, snapshots among them, then main
# opens out.txt and writes it.
. "$(dirname "$0")/lib.sh"

plan 6

P="$PROGS/rr_entropy_open"

spool_run record -q --snap-period 20 -o g.trace -- "$P" 4 50 out.txt
is_rc 0 "record --snap-period 20: exit 0"
cp run.out rec.out
cp out.txt rec.txt
like "$(cat rec.txt)" '^total -?[0-9]+ fd 3$' "the recording's file: the total and its descriptor, 3"
"$SPOOL" info g.trace >info.txt 2>&1
EVS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' info.txt)
num_cmp "$(echo "$EVS" | grep -c .)" -ge 2 "it has snapshots (at events $(echo $EVS))"
good=0 tried=0 bad=""
for e in $(echo "$EVS" | head -n 1) $(echo "$EVS" | tail -n 1); do
	rm -f out.txt
	spool_run replay -q -o "r$e.trace" --goto "$e" g.trace
	tried=$((tried + 1))
	if [ "$RC" = 0 ] && cmp -s out.txt rec.txt && tail_ok rec.out run.out; then
		good=$((good + 1))
	else
		bad="$bad $e(rc $RC)"
		diag "--goto $e: $(head -4 run.err)"
	fi
done
is "$good" "$tried" "replays from the first and the last snapshot exit 0, write the recorded file on fd 3 and print the output's tail${bad:+ (not:$bad)}"
rm -f out.txt
spool_run replay -q -o full.trace g.trace
ok "a replay from the start: the same file and output" \
	bash -c "[ $RC = 0 ] && cmp -s out.txt rec.txt && cmp -s run.out rec.out" || show_run
unlike "$(ls g.trace/.spool/snap/)" '\.tmp$' "no snapshot left half written"
done_testing
