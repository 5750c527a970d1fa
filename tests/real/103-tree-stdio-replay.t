#!/bin/bash
# SPDX-License-Identifier: MIT
# 103-tree-stdio-replay.t - Debian programs whose processes print through
# stdio and read pipes through stdio, recorded as trees in serial mode and
# replayed (issue 13):
# - GNU make -j2 running two recipes that print between sleeps: make echoes
#   each command through stdio (fputs, glibc's own write), the recipes'
#   printf through the shell's write; 3 replays print every line in the
#   recorded order (before, make's echoes came out at its own pace);
# - `sh -c 'seq 1 100000 | sort -rn | tail -3'`: seq writes through stdio,
#   sort reads through stdio (fread); 3 replays print the recorded lines;
#   sort replayed alone (--pid) reads its recorded input and ends, and tail
#   replayed alone prints its lines into a pipe (spool's stdout);
# - perl forking children that print between sleeps: 3 replays, recorded
#   order.
. "$(dirname "$0")/lib.sh"
need_progs make sh seq sort tail perl
plan 12

cat >Makefile <<'EOF'
all: a b
a:
	@echo a start
	sleep 0.05
	printf 'a %s\n' 1 2
	sleep 0.05
	printf 'a %s\n' 3 4
b:
	@echo b start
	sleep 0.03
	printf 'b %s\n' 1 2
	sleep 0.05
	printf 'b %s\n' 3 4
EOF
spool_run record -q -o make.trace -- make -j2
is_rc 0 "make -j2 records (exit 0)"
cp run.out make.out
is "$(grep -c '^[ab] [0-9]$' make.out)" 8 "  its recipes printed their 8 lines"
replays_same 3 0 make.out -q make.trace
is "$SAME" 3 "3 replays of make -j2 print make's echoes and the recipes' lines in the recorded order"

CMD='seq 1 100000 | sort -rn | tail -3'
spool_run record -q -o pipe.trace -- sh -c "$CMD"
is_rc 0 "the pipeline records (exit 0)"
cp run.out pipe.out
is "$OUT" "$(sh -c "$CMD")" "  and prints what it prints alone"
replays_same 3 0 pipe.out -q pipe.trace
is "$SAME" 3 "3 replays of the pipeline print the recorded lines"
spool_run info pipe.trace
spid=$(awk '$5 == "exec" && $6 ~ /\/sort$/ { print $2 }' run.out | head -n 1)
tpid=$(awk '$5 == "exec" && $6 ~ /\/tail$/ { print $2 }' run.out | head -n 1)
ok "spool info names sort and tail" test -n "$spid" -a -n "$tpid"
spool_run replay -q --pid "${spid:-0}" pipe.trace
is_rc 0 "sort replayed alone (its input comes from its log through fread) exits 0"
timeout 60 "$SPOOL" replay -q --pid "${tpid:-0}" pipe.trace 2>tail.err | cat >tail.out
is "$(cat tail.out)" "$(cat pipe.out)" "tail replayed alone prints its lines into a pipe"

PL='$| = 1; for my $c (1 .. 2) { if (!fork) { for my $i (1 .. 4) { print "child $c line $i\n";
 select(undef, undef, undef, 0.02 + 0.01 * $c) } exit $c } }
 for my $i (1 .. 4) { print "parent line $i\n"; select(undef, undef, undef, 0.025) }
 while ((my $p = wait) > 0) { print "child ended ", $? >> 8, "\n" }'
spool_run record -q -o perl.trace -- perl -e "$PL"
is_rc 0 "perl forking 2 printing children records (exit 0)"
cp run.out perl.out
is "$(grep -c 'line' perl.out)" 12 "  every process printed its lines"
replays_same 3 0 perl.out -q perl.trace
is "$SAME" 3 "3 replays of the perl tree print the lines in the recorded order"
done_testing
