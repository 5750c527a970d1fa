#!/bin/bash
# SPDX-License-Identifier: MIT
# 128-diverge-cause.t - when a sync replay diverges, spool says what differs
# and suggests a data race only where one can be the cause. rr_fdcause's
# replay is made to go another way on purpose (--env changes the program,
# a file removed changes its world):
#   a descriptor made by a raw system call: the worker's open gets another
#     number -> "another descriptor number", "not a data race";
#   the file gone: the open gets an inert stand-in at the recorded number
#     and the read comes from the recording -> no divergence at all;
#   a lock before any thread exists: another call with one thread -> "no
#     data race explains it", and the report names where the lock was taken;
#   the same lock with two threads: a data race is named as a likely cause;
#   serial mode, the extra descriptor: the worker's read is on another
#     number -> "another descriptor number", "not a data race".
. "$(dirname "$0")/lib.sh"

plan 26

P="$PROGS/rr_fdcause"
echo hello >in.txt

spool_run record -q --mode sync -o c.trace -- "$P" "$PWD/in.txt"
is_rc 0 "sync record"
is "$OUT" "read: hello" "the recorded run read the file"
spool_run replay -q c.trace
is_rc 0 "an unchanged replay does not diverge"

spool_run replay -q --env FDCAUSE_EXTRA=1 c.trace
is_rc 3 "an extra descriptor: the replay diverges"
# (the numbers depend on what the harness left open: the replay's is the next)
rec_fd=$(sed -n 's/.*recorded: open returning \([0-9]*\).*/\1/p' run.err)
rep_fd=$(sed -n 's/.*replay: *open returning \([0-9]*\).*/\1/p' run.err)
like "$rec_fd" '^[0-9]+$' "the report shows the recorded number"
is "$rep_fd" "$((rec_fd + 1))" "... and this replay's, one above"
like "$ERR" 'another descriptor number' "the advice names a descriptor number"
like "$ERR" 'not a data race' "... and says it is not a data race"

mv in.txt gone.txt
spool_run replay -q c.trace
is_rc 0 "the file gone: the replay does not diverge (a stand-in takes its number)"
is "$OUT" "read: hello" "... and the program reads what it read when recorded"
unlike "$ERR" 'diverged' "... and nothing is said to differ"
unlike "$ERR" 'likely cause' "no data race is suggested"
mv gone.txt in.txt

spool_run replay -q --env FDCAUSE_LOCK=1 c.trace
is_rc 3 "another call with one thread: the replay diverges"
like "$ERR" 'only one thread had been created.*no data race explains it' \
	"the advice rules a data race out"
unlike "$ERR" 'likely cause' "... and does not suggest one"
# the report names the code that took the lock: maybe_lock is static (no
# dynamic symbol), so the program's file and the offset in it
site=$(sed -n 's/.*replay: *lock on lock .*, called from .*rr_fdcause+\(0x[0-9a-f]*\)$/\1/p' run.err)
if command -v addr2line >/dev/null; then
	is "$(addr2line -f -e "$P" "$(printf '0x%x' $((site - 1)))" | head -n 1)" maybe_lock \
		"the lock's call site in the report is in maybe_lock (addr2line)"
else
	like "$site" '^0x[0-9a-f]+$' "the report gives the lock's call site in the program"
fi

spool_run replay -q --env FDCAUSE_LATE=1 c.trace
is_rc 3 "another call with two threads: the replay diverges"
like "$ERR" 'data race.*likely cause' "a data race is named as a likely cause"

# Serial mode orders no descriptor table (one thread runs at a time): the
# extra descriptor shows at the worker's read, on another number.
spool_run record -q -o ser.trace -- "$P" "$PWD/in.txt"
is_rc 0 "serial record"
spool_run replay -q --env FDCAUSE_EXTRA=1 ser.trace
is_rc 3 "serial, an extra descriptor: the replay diverges"
like "$ERR" 'the same call on another descriptor number' "the report names the descriptor number"
like "$ERR" 'not a data race' "... and rules a data race out"
# A limit, said rather than hung on: two threads open the two ends of one
# FIFO; the replay makes the opens one at a time, so the first waits in the
# kernel for an end that is never opened.
spool_run record -q --mode sync -o fifo.trace -- "$PROGS/rr_fifo" "$PWD/f.fifo"
is_rc 0 "sync record of two threads opening a FIFO's ends"
spool_run replay -q --stuck-ms 1000 fifo.trace
is_rc 3 "its replay stops"
like "$ERR" 'replay stuck.*is in that descriptor call, which blocks' \
	"the report says a thread blocks in its descriptor call"
# ... and what the kernel says of it: asleep in the open, not starved
like "$ERR" 'kernel: tid [0-9]+, state S \(sleeping\), in system call [0-9]+ \(openat\)' \
	"the report gives the blocked thread's kernel state and system call"
done_testing
