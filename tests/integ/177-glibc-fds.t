#!/bin/bash
# SPDX-License-Identifier: MIT
# 177-glibc-fds.t - descriptors glibc makes inside itself: rr_netdb fds
# FILE runs, in one thread, popen (with pclose), freopen, tmpfile,
# gethostbyname and getservbyname (the name service opens its files inside
# libc) round after round, while a second thread opens, reads and closes
# FILE in the same rounds (a barrier starts each). Each thread notes the
# numbers it got and what it read. In sync mode the numbers depend on which
# thread's call reached the kernel first; popen, pclose and freopen take
# their turns of the descriptor table as fopen does (src/agent/
# agent_rr_fd.c), so 3 replays print the recorded numbers (before, 2 sync
# replays of 3 stopped: "the descriptor number differs, and the recorded one
# is taken"). The lookups of names /etc/hosts and /etc/services have are
# made again in a replay, and glibc opens those files inside them: they
# take a turn of the descriptor table too (RR_FD_LOOKUP), so the second
# thread's open never meets their descriptor (a sync replay under load
# stopped so once: open returned 4 for the recorded 3). Serial mode
# replays them too. The popen'ed commands are replayed as processes of the
# recording.
. "$(dirname "$0")/lib.sh"

plan 9

P="$PROGS/rr_netdb"
echo content >file
for mode in sync serial; do
	spool_run record --mode "$mode" -o "fds.$mode" -- "$P" fds file
	cp run.out "fds.$mode.out"
	like "$RC:$(tr '\n' ' ' <run.out)" "^0:glibc 0: popen fd [0-9]+ read 'popen-0', freopen fd [0-9]+, tmpfile fd [0-9]+, localhost, ssh .*plain 19: open fd [0-9]+ read 'content'" \
		"$mode: recorded (exit 0)" || show_run
	replays_same 3 0 "fds.$mode.out" -o rp "fds.$mode"
	is "$SAME" 3 "$mode: 3 replays of 3 with the recorded descriptor numbers and data"
done
# The same meeting made likely: 300 lookups in one thread, 300 opens of a
# file in another, at once. Before the lookups took turns, 11 of 30 sync
# replays under a CPU hog stopped at "the recorded one is taken"; none now.
spool_run record -q --mode sync -o lk.sync -- "$P" lookups file
is "$RC" 0 "sync: lookups meeting opens recorded (exit 0)"
cp run.out lk.sync.out
replays_same 3 0 lk.sync.out -o lkrp lk.sync
is "$SAME" 3 "sync: 3 replays of 3 give the opens their recorded numbers"
# (not a check: whether the threads' calls met depends on the machine)
diag "sync recording: $(grep -c 'fd [4-9]' fds.sync.out) of 40 rounds got a number other than 3"
"$SPOOL" replay --dump-schedule fds.sync >sched.txt 2>/dev/null
# (op 60: RR_OP_FDTAB, src/replay/rr_area.h)
num_cmp "$(grep -c '^sched obj .* op 60 ' sched.txt)" -ge 100 \
	"the sync recording orders the descriptor table (a turn for each popen, pclose, freopen, fopen, fclose, tmpfile, open and close)"
# (call 21: RR_FD_LOOKUP; 2 lookups a round, 20 rounds)
num_cmp "$(grep -c '^sched obj .* op 60 result -1 call 21$' sched.txt)" -ge 40 \
	"  and a turn for each name lookup (their files' descriptors)"
ok "the popen'ed commands are processes of the recording" \
	test "$(ls fds.sync/.spool/proc 2>/dev/null | grep -c cmdline)" -ge 20
done_testing
