#!/bin/bash
# SPDX-License-Identifier: MIT
# 403-rr-stdio-wait-outside.t - a serial recording whose token holder waits
# in a stdio read for the outside world is not "stuck" (doc/record.md,
# "Standard I/O inside libc"). A stdio read keeps the run token while it
# blocks (its FILE's lock is held), so the program's other threads wait
# for the token; the watchdog stopped the recording after --stuck-ms, and a
# user typing slowly into a two-thread program lost it (the old code
# stopped each run below with "record stuck" at about 1 s). Now a holder
# that waits in a stdio read or write whose other end is outside the
# process (a terminal, a pipe the process holds no other end of, a socket
# to another process) is left to wait: the line comes 3 s late from a
# pipe, with --stuck-ms 1000, and every run ends 0 with its lines. A read
# of a pipe only the process itself could write is still reported.
. "$(dirname "$0")/lib.sh"

plan 9

P="$PROGS/rr_stdinwait"

# rec MODE TRACE: record with the lines written 3 s late (and 1 s apart)
rec() {
	(sleep 3; echo hello; sleep 1; echo world) |
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" record --stuck-ms 1000 -o "$2" -- "$P" $1 \
			>"$2.out" 2>"$2.err"
}

# --- main reads its lines with fgets (the worker waits for the token)
rec "" a.trace
rc=$?
is "$rc" 0 "a holder waiting 3 s in fgets of a pipe is not stopped (--stuck-ms 1000)" ||
	diag "$(cat a.trace.err)"
unlike "$(cat a.trace.err)" "record stuck" "no stuck report"
like "$(cat a.trace.out)" "^main: 2 lines" "both lines came through"

# --- a third thread reads while main waits in pthread_join (the join watch)
rec join j.trace
rc=$?
is "$rc" 0 "a holder in fgets while main joins it is not stopped" || diag "$(cat j.trace.err)"
like "$(cat j.trace.out)" "^main: 2 lines" "join: both lines came through"

# --- a stdio write to a pipe its reader drains 3 s late (a pager): the
# worker's printf blocks holding the token, main waits for it
yes "a line of some sixty bytes for the worker to print back out, more" |
	head -n 4000 >lines
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record --stuck-ms 1000 -o w.trace -- "$P" \
	<lines 2>w.trace.err | (sleep 3; cat) >w.trace.out
rc=${PIPESTATUS[0]}
is "$rc" 0 "a holder in a stdio write to a full pipe drained late is not stopped" ||
	diag "$(cat w.trace.err)"
like "$(tail -n 1 w.trace.out)" "^main: 4000 lines" "write: every line came through"

# --- stdin a pipe whose write end the program holds: nothing outside will
# write, the worker waits for good: reported, and the run stopped
timeout -k 10 120 "$SPOOL" record --stuck-ms 1000 -o s.trace -- "$P" self \
	</dev/null >s.trace.out 2>s.trace.err
rc=$?
ok "a read only the process could end is stopped (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
like "$(cat s.trace.err)" "record stuck: thread 1 waited [0-9]+ ms for the run token; thread 0 holds it" \
	"and reported as stuck"
