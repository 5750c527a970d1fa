#!/bin/bash
# SPDX-License-Identifier: MIT
# 99-fd-numbers.t - a program gets the descriptor numbers it gets without
# spool, under spool record (both modes), spool replay and the replay that
# spool path makes: the shared region's descriptor sits at a fixed high
# number, kept in the recording, and nothing else leaks into the program.
# (spool path's replay used to leak a /dev/null descriptor: every replayed
# number was one off, and a server's replay diverged.)
. "$(dirname "$0")/lib.sh"

plan 10

# Descriptors the harness left open would hide a leak above them: run with
# only 0, 1 and 2, as a program started from a shell usually is.
for fd in $(ls /proc/$$/fd); do
	[ "$fd" -gt 2 ] && eval "exec $fd>&-"
done

P="$PROGS/rr_fdnum"
"$P" >native.out </dev/null
like "$(cat native.out)" '^file [0-9]+' "the program prints its descriptors"

for mode in sync serial; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P"
	is_rc 0 "$mode: record"
	ok "$mode: the recorded run got the native numbers" cmp -s run.out native.out ||
		diag "$(diff native.out run.out)"
	spool_run replay -q "$mode.trace"
	ok "$mode: the replay got them too" cmp -s run.out native.out ||
		diag "$(diff native.out run.out)"
done
like "$(cat sync.trace/.spool/record)" 'shm_fd=[0-9]+' "the recording says where the region was"

# spool path of a recording replays it with --record-path: same numbers
# (the replay's stdout is not shown there, so compare its trace's replay)
spool_run replay -q --record-path -o rp.trace serial.trace
ok "replay --record-path: the native numbers" cmp -s run.out native.out ||
	diag "$(diff native.out run.out)"
# spool path itself: its replay (with probes on the functions: the program
# is not built with -finstrument-functions) must not diverge.
spool_run path serial.trace
unlike "$ERR" 'diverged' "spool path's own replay follows the recording"
done_testing
