#!/bin/bash
# SPDX-License-Identifier: MIT
# 298-record-clone-threads.t - spool record of a program whose threads are
# made with glibc's clone() and (x86-64) its own clone system call, beside
# a pthread (tests/progs/clone_locks). spool record does not number such
# threads: their calls are recorded as their creator's. Before, record
# warned that a replay "may diverge", exited 0, and spool replay replayed
# it. Now the recording says how many there were (clone_threads in its
# record side file), spool record says spool replay refuses it and exits 5
# (--force: the program's status), and spool replay and spool info refuse
# it with the same reason: a replay never silently differs. The program's
# output is never changed. Also with syscall user dispatch off
# (SPOOL_NO_DISPATCH=1): libc's clone() is still seen; the program's own
# clone system call is not, and spool record says so. spool record stops
# the recording at the first clone (the program runs on unrecorded): two
# threads under one serial number made a serial record hang
# (tests/integ/313 runs it many times).
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/clone_locks"
plan 14

native="$("$PROG" 2 2>native.err)"
NRC=$?
native=$(echo $native)
is "$NRC $native" "0 counter ok sums ok" "natively: every thread's locking adds up"
made=$(sed -n 's/.* \([0-9]*\) clone threads$/\1/p' native.err)
num_cmp "${made:-0}" -gt 0 "  it made $made clone threads"

WHY="the program made $made threads with its own clone \\(libc's clone\\(\\) or its own clone system call, not pthread_create\\), which spool record does not number"

timeout -k 5 120 "$SPOOL" record -o r.trace -- "$PROG" 2 >r.out 2>r.err
RC=$?
check_sanitizer r.err "spool record"
is "$RC $(echo $(cat r.out))" "5 $native" "spool record: the program's output; exit 5 (spool replay refuses it)" ||
	diag "$(cat r.err)"
like "$(cat r.err)" "does not number the threads the program made with its own clone \\($made\\).*spool replay refuses this recording" \
	"  it says why, with the count"
is "$(sed -n 's/^clone_threads=//p' r.trace/.spool/record 2>/dev/null)" "$made" \
	"  the recording keeps the count" || diag "$(ls r.trace/.spool)"

spool_run replay r.trace
is "$RC" 1 "spool replay refuses it"
like "$ERR" "$WHY.*cannot replay it" "  saying why"
unlike "$OUT" "counter" "  (the program did not run)"

spool_run info r.trace
like "$OUT" "spool replay stops at once with: $WHY" "spool info says the same"

# --force: the program's status; the recording is refused all the same
timeout -k 5 120 "$SPOOL" record --force -o f.trace -- "$PROG" 2 >f.out 2>f.err
RC=$?
is "$RC $(echo $(cat f.out))" "0 $native" "spool record --force: the program's output and status"
spool_run replay f.trace
is "$RC" 1 "  spool replay refuses that recording too"

# dispatch off: libc's clone() is caught all the same (its wrapper)
SPOOL_NO_DISPATCH=1 timeout -k 5 120 "$SPOOL" record -o n.trace -- "$PROG" 2 >n.out 2>n.err
RC=$?
is "$RC $(echo $(cat n.out))" "5 $native" "dispatch off: spool record exits 5, the program's output"
n=$(sed -n 's/^clone_threads=//p' n.trace/.spool/record 2>/dev/null)
num_cmp "${n:-0}" -gt 0 "  the recording counts the clone() threads ($n)"
like "$(cat n.err)" "syscall user dispatch is not available.*a thread one of them makes \\(a clone\\) is not seen being made: spool finds it when it first takes part in a switch of the run token \\(serial mode\\) or first enters spool on a stack other than its creator's.*syscall at raw_clone" \
	"  and says its own clone system call is not seen being made there (tests/integ/313)"

done_testing
