#!/bin/bash
# SPDX-License-Identifier: MIT
# 351-record-sync-clone-below-creator.t - spool record --mode sync (and
# serial, checked the same at the end), with
# syscall user dispatch off (SPOOL_NO_DISPATCH=1), of a program whose
# thread is made with its own clone system call on a stack right below its
# creator's frame (tests/progs/clone_busy below): spool does not see it
# made, and its frames lie within the span spool keeps of its creator's
# stack, so the stack check takes it for its creator. It takes a mutex 300
# times and never takes part in a switch of a run token (sync mode has
# none). Before, its 300 lock and unlock calls were recorded as its
# creator's and the recording was not refused (exit 0, 301 schedule
# events): a replay could not follow it. Now each recorded call asks the
# kernel which thread it runs on where dispatch is off: the thread is
# counted, the recording stops, spool record says so and exits 5, and
# spool replay refuses the recording.
# That ask was then made at 1 call in 32 (RR_INTRUDER_EVERY): a thread
# making one lock+unlock after its creator's first few calls ran unseen,
# its calls recorded as its creator's, and spool record exited 0 (every
# run; tests/progs/trust20_clone_few). Now a call from a frame address the
# kernel has not confirmed for the thread state asks too: found and
# stopped whatever the count before it.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/clone_busy"
plan 9

if [ "$(uname -m)" != x86_64 ]; then
	skip 9 "the program's own clone system call is x86-64 assembly"
	done_testing
fi

native="$("$PROG" below 2>native.err)"
is "$? $native" "0 counter ok" "natively: the thread's locking adds up"

SPOOL_NO_DISPATCH=1 timeout -k 5 120 "$SPOOL" record --mode sync -o r.trace -- "$PROG" below \
	>r.out 2>r.err
RC=$?
check_sanitizer r.err "spool record"
ERR=$(cat r.err)
is "$RC $(cat r.out)" "5 counter ok" "spool record --mode sync, dispatch off: the program's output; exit 5" ||
	diag "$ERR"
like "$ERR" "does not number the threads the program made with its own clone \\(1, of which 1 not seen being made: found running on its creator's thread state" \
	"  spool record counts the thread it did not see made, and says the recording stopped"
is "$(sed -n 's/^clone_threads=//p' r.trace/.spool/record 2>/dev/null)" 1 \
	"  the recording keeps the count (clone_threads=1)"
spool_run replay r.trace
like "$RC $ERR" "^1 .*which spool record does not number: the recording stopped where the first one was made; cannot replay it" \
	"spool replay refuses it, saying why"

# serial mode, dispatch off: the thread is found when it first takes part
# in a switch of the run token, and the same is said and refused
SPOOL_NO_DISPATCH=1 timeout -k 5 120 "$SPOOL" record -o s.trace -- "$PROG" below >s.out 2>s.err
RC=$?
check_sanitizer s.err "spool record (serial)"
is "$RC $(cat s.out)" "5 counter ok" "serial mode, dispatch off: the program's output; exit 5" ||
	diag "$(cat s.err)"
spool_run replay s.trace
like "$RC $ERR" "^1 .*which spool record does not number: the recording stopped where the first one was made; cannot replay it" \
	"  spool replay refuses it, saying why"

# a thread that makes one lock+unlock, after its creator made PRE: found
# whatever PRE (before: only when PRE happened to be a multiple of 32)
res=""
for pre in 1 2 3 7 16 31 33; do
	SPOOL_NO_DISPATCH=1 timeout -k 5 120 "$SPOOL" record --mode sync -q -o "f$pre.trace" -- \
		"$PROGS/trust20_clone_few" "$pre" 1 >f.out 2>f.err
	res="$res $pre:$?:$(cat f.out)"
	check_sanitizer f.err "spool record (few, $pre)"
done
is "$res" " 1:5:counter ok 2:5:counter ok 3:5:counter ok 7:5:counter ok 16:5:counter ok 31:5:counter ok 33:5:counter ok" \
	"sync, dispatch off: a thread with 1 lock+unlock after its creator's N is found and the recording stopped (exit 5), for every N"

# dispatch on: the clone is seen made, the recording stops before it
timeout -k 5 120 "$SPOOL" record --mode sync -o d.trace -- "$PROG" below >d.out 2>d.err
RC=$?
check_sanitizer d.err "spool record (dispatch on)"
is "$RC $(cat d.out)" "5 counter ok" "dispatch on: the clone seen made, exit 5 too, the program's output" ||
	diag "$(cat d.err)"

done_testing
