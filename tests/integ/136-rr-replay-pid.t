#!/bin/bash
# SPDX-License-Identifier: MIT
# 136-rr-replay-pid.t - `spool replay --pid N` replays one process of a
# recorded tree from its own recording (issue 13). The processes on the
# way to it (its parent) replay up to the fork that starts it, without
# output, and the others do not run at all: child 0 of rr_forkpipe prints
# exactly the line it printed when recorded (its pid, time and random
# bytes), and the replay exits with its recorded status. --pid of the
# first process replays it without its children: its waitpid statuses and
# its read of the pipe come from its log.
. "$(dirname "$0")/lib.sh"

plan 7

spool_run record -o fp.trace -- "$PROGS/rr_forkpipe" 2
is_rc 0 "record of rr_forkpipe 2 exits 0"
cp run.out rec.out
child0=$(sed -nE 's/^child 0 pid ([0-9]+) .*/\1/p' rec.out | head -n 1)
status0=$(sed -nE 's/^child 0 \(pid [0-9]+\) exited ([0-9]+)$/\1/p' rec.out)
root=$(sed -nE 's/^parent ([0-9]+) starts.*/\1/p' rec.out)

spool_run replay --pid "$child0" fp.trace
is_rc "$status0" "--pid of child 0 exits with its recorded status ($status0)"
is "$OUT" "$(grep -m1 '^child 0 pid' rec.out)" "  and prints exactly its recorded line, nothing of its parent's"
like "$ERR" "replayed process 1 .* alone" "  spool says that one process was replayed alone"

spool_run replay -q --pid "$root" fp.trace
is_rc 0 "--pid of the first process (no child runs) exits 0"
# (the child's own line, the first: its copy in the pipe is the parent's)
sed '0,/^child 0 pid/{/^child 0 pid/d}' rec.out >parent.out
ok "  with the parent's recorded output: statuses and pipe from its log" cmp -s run.out parent.out \
	|| diag "$(diff parent.out run.out)"
spool_run replay -q fp.trace
ok "the whole tree replays with the recorded output" cmp -s run.out rec.out

done_testing
