#!/bin/bash
# SPDX-License-Identifier: MIT
# 394-rr-sevthread-serial.t - serial mode refuses the function of a
# SIGEV_THREAD timer that takes a lock (issue 13; doc/record.md
# "SIGEV_THREAD timers"). glibc runs the function in a thread it starts at
# each expiry, when the kernel's timer fires, so where that thread takes
# part in the serial schedule is the kernel's timing: every replay of
# tests/progs/rr_sevthread (whose functions append to a log under a mutex)
# diverged ("a different switch point", exit 3) after a recording that said
# nothing. Now the function's first switch point stops the recording: the
# program runs on unrecorded (its output whole), spool record exits 5
# naming the function, where its timer_create was called and sync mode,
# and spool replay refuses the recording with the same reason. (A function
# that makes no such call, vim's, records and replays as before:
# tests/real/137.) 319 has the sync mode, which records and replays it.
. "$(dirname "$0")/lib.sh"

plan 9

P="$PROGS/rr_sevthread"

spool_run record --mode serial -o serial.trace -- "$P" 20
is_rc 5 "serial record of rr_sevthread: refused (exit 5)"
like "$OUT" '^ticks 1' "  the program ran to its end: the timers fired"
num_cmp "$(sed -n 2p run.out | tr -cd XY | wc -c)" -ge 20 "  its log has the timers' 20 entries"
like "$ERR" 'function of a SIGEV_THREAD timer \(0x[0-9a-f]+, its timer_create, called from [^)]*rr_sevthread' \
	"  the error names the function and where its timer_create was called"
like "$ERR" 'Record it in sync mode \(--mode sync\)' "  and says to record it in sync mode"
unlike "$ERR" 'could not number' "  no other warning"
spool_run replay -q serial.trace
num_cmp "$RC" -ne 0 "spool replay refuses the recording"
like "$ERR" 'SIGEV_THREAD timer.*cannot replay it' "  saying why"
spool_run record -q --force --mode serial -o forced.trace -- "$P" 20
is_rc 0 "--force: the program's exit status"
done_testing
