#!/bin/bash
# SPDX-License-Identifier: MIT
# 81-shell-pipeline-replay.t - Debian's dash running a pipeline (issue 13):
# `sh -c 'cat | sort -r | uniq -c | head; date | tr'` recorded as a tree
# (the shell, each child it forks and the program it execs) and replayed
# 3 times in serial and in sync mode: each replay exits 0 with the
# recorded output, date's time included (date replays from its own
# recording; tr reads it from its log). Then --pid of tr: it prints the
# recorded line alone.
. "$(dirname "$0")/lib.sh"
need_progs sh sort uniq head date tr
plan 11

"$REAL_PY" -c '
import random
r = random.Random(13)
for _ in range(30000):
    print(r.choice(["alpha", "beta", "gamma", "delta"]), r.randint(1, 40))
' >words.txt
CMD='cat words.txt | sort -r | uniq -c | head -n 5; date +%s.%N | tr 0-9 a-j'

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- sh -c "$CMD"
	is_rc 0 "$mode: record of the pipeline exits 0"
	cp run.out "$mode.out"
	is "$(head -n 5 run.out)" "$(sh -c "$CMD" | head -n 5)" "  its output is the pipeline's"
	is "$(info_lost "$mode.trace")" 0 "  nothing lost"
	replays_same 3 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 exit 0 with the recorded output (date's time too)"
done

spool_run info serial.trace
trpid=$(awk '$5 == "exec" && $6 ~ /\/tr$/ { print $2 }' run.out | head -n 1)
ok "spool info names tr among the processes" test -n "$trpid"
spool_run replay -q --pid "${trpid:-0}" serial.trace
is_rc 0 "--pid of tr exits 0"
is "$OUT" "$(tail -n 1 serial.out)" "  and prints tr's recorded line alone"
done_testing
