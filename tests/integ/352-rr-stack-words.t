#!/bin/bash
# SPDX-License-Identifier: MIT
# 352-rr-stack-words.t - the agent leaves the program's stack the same in a
# recording and in its replay (doc/record.md, "The program's stack"): a
# conservative GC (Ruby's) reads stack words below its frames that no call
# of the program wrote, what the agent left there, and the agent does other
# work in each mode. rr_stackwords fills the stack below its frame with a
# pattern, makes a recorded call (read, clock_gettime, getrandom, a mutex
# another thread takes too), and prints a hash of what is there afterwards:
# each replay, serial and sync, prints the recording's hashes (before the
# entry stubs, the read's differed: 4568 bytes deep in a replay, 360 in
# the recording). The stubs see through themselves for the interposers that
# look at their return address: getrandom made through syscall() is still
# the program's (a replay prints the recorded bytes), and a mutex's init
# site in a recording is main. The stubs zero only on the thread's own
# stack: a coroutine on a 16 KiB stack of the program's own, with a pattern
# right below it, finds the pattern whole; so does one on a buffer inside
# the thread's own stack (a thread that calls swapcontext is not zeroed).
. "$(dirname "$0")/lib.sh"

plan 12

P="$PROGS/rr_stackwords"

"$P" >native.out 2>&1
ok "without spool: 8 scans and the threads' count" \
	bash -c "[ \$(grep -c ': deepest [0-9]* hash ' native.out) = 8 ] && grep -qx 'shared 204' native.out"

for mode in serial sync; do
	spool_run record -q --mode "$mode" --lock-events -o "$mode.trace" -- "$P"
	cp run.out "$mode.rec"
	ok "$mode: recorded, exit 0, 8 scans" \
		bash -c "[ $RC = 0 ] && [ \$(grep -c ': deepest [0-9]* hash ' $mode.rec) = 8 ]" || show_run
	like "$(cat "$mode.rec")" 'coroutine: 0 words below its stack changed' \
		"$mode: a coroutine's calls on a small stack of its own zero nothing below it"
	like "$(cat "$mode.rec")" "coroutine on the thread's stack: 0 words below its stack changed" \
		"$mode: nor on a buffer inside the thread's stack (swapcontext ends the zeroing)"
	replays_same 3 0 "$mode.rec" -q -o "$mode.r.trace" "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 find the recording's stack words after each call (and the syscall() bytes)"
done
site=$("$SPOOL" report --json sync.trace 2>/dev/null | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["locks"][0]["init_site"])')
like "$site" '^main\+' "record: the mutex's init site is main's, not the entry stub's"
"$SPOOL" replay --dump-schedule serial.trace >sched.txt 2>/dev/null
num_cmp "$(grep -c ' call 15 .* len 8$' sched.txt)" -ge 2 \
	"record: getrandom through syscall() and the named call are inputs of the log"

spool_run locks -q -o lk.trace -- "$P"
ok "spool locks (no scrub: a tail jump): exit 0, the program's output" \
	bash -c "[ $RC = 0 ] && grep -qx 'shared 204' run.out" || show_run
done_testing
