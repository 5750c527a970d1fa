#!/bin/bash
# SPDX-License-Identifier: MIT
# 127-fd-order-calls.t - every kind of call that makes or frees a
# descriptor takes its turn of the table in sync mode: pipe, pipe2,
# socketpair (two numbers, moved as a pair when they come out elsewhere),
# dup, dup2, dup3, fcntl F_DUPFD_CLOEXEC, eventfd, epoll_create1,
# timerfd_create, memfd_create, signalfd, creat, mkstemp (which opens inside
# libc), fopen and tmpfile (the same, the FILE gets the recorded number),
# close and fclose. 4 threads make them all at once; 3 sync replays read
# through the same numbers and print the same sums of them.
. "$(dirname "$0")/lib.sh"

plan 7

P="$PROGS/rr_fdorder"
mkdir -p d

spool_run record -q --mode sync -o s.trace -- "$P" d 4 40 all
is_rc 0 "sync record"
cp run.out rec.out
num_cmp "$(grep -c ' others ' rec.out)" -eq 160 "every round made every kind of descriptor"
"$SPOOL" replay --dump-schedule s.trace >dump.txt 2>/dev/null
# 40 rounds x 4 threads x (open, close + 30 in others)
num_cmp "$(grep -c ' op 60 ' dump.txt)" -ge 5000 "each of those calls took a turn of the table"

same=0
for i in 1 2 3; do
	spool_run replay -q s.trace
	if [ "$RC" = 0 ] && cmp -s run.out rec.out; then
		same=$((same + 1))
	else
		show_run
	fi
done
is "$same" 3 "3 sync replays: exit 0 and the recorded numbers"
unlike "$ERR" 'diverged' "no divergence"

# Without spool the same program runs as before (the interposers pass
# through when nothing is recorded).
"$P" d 4 40 all >native.out
num_cmp "$(grep -c ' others ' native.out)" -eq 160 "the program alone"
spool_run locks -q -o l.trace -- "$P" d 2 10 all
is_rc 0 "spool locks: the interposers pass through"
done_testing
