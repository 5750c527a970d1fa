#!/bin/bash
# SPDX-License-Identifier: MIT
# 126-fd-order.t - sync mode orders the descriptor table: threads that open,
# read and close files at once, without a lock between them (as git grep
# --threads does), get their descriptor numbers in whatever order their
# calls reach the kernel; a sync replay makes those calls in the recorded
# order (each takes a turn of the table) and moves a descriptor that came
# out elsewhere to the recorded number, so every replay reads the same
# descriptors and prints the same numbers. (Before, the replay diverged at
# a read "on another descriptor" and blamed a data race.)
. "$(dirname "$0")/lib.sh"

plan 11

P="$PROGS/rr_fdorder"
mkdir -p d

spool_run record -q --mode sync -o s.trace -- "$P" d 4 200
is_rc 0 "sync record of 4 threads opening files at once"
cp run.out rec.out
num_cmp "$(grep -c ' fd ' rec.out)" -eq 800 "every open was noted"
like "$(cat s.trace/.spool/record)" 'fdtab=1' "the recording says it ordered the descriptor table"
"$SPOOL" replay --dump-schedule s.trace >dump.txt 2>/dev/null
# op 60: a descriptor call (rr_area.h RR_OP_FDTAB): 800 opens and 800 closes
num_cmp "$(grep -c ' op 60 ' dump.txt)" -ge 1600 "every open and close took a turn of the table"

same=0
for i in 1 2 3; do
	spool_run replay -q s.trace
	if [ "$RC" = 0 ] && cmp -s run.out rec.out; then
		same=$((same + 1))
	else
		show_run
	fi
done
is "$same" 3 "3 sync replays: exit 0 and the recorded descriptor numbers"
unlike "$ERR" 'diverged' "no divergence"

# Serial mode runs one thread at a time: nothing to order, and no
# descriptor record is written.
spool_run record -q -o ser.trace -- "$P" d 4 50
is_rc 0 "serial record"
cp run.out ser.out
spool_run replay -q ser.trace
is_rc 0 "serial replay"
ok "serial replay: the recorded numbers" cmp -s run.out ser.out
unlike "$(cat ser.trace/.spool/record)" 'fdtab' "a serial recording orders no descriptor table"
"$SPOOL" replay --dump-schedule ser.trace >sdump.txt 2>/dev/null
num_cmp "$(grep -c ' op 60 ' sdump.txt)" -eq 0 "no descriptor records in serial mode"
done_testing
