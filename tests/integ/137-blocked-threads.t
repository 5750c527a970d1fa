#!/bin/bash
# SPDX-License-Identifier: MIT
# 137-blocked-threads.t - threads that block signals or block in their own
# futex, under record and replay. 1) A thread that blocks every signal (sigfillset, as
# nginx's thread-pool threads do) and then makes the dynamic loader open a
# library: ld.so's system calls come from outside libc's text, so syscall
# user dispatch raises SIGSYS for each, and a SIGSYS the kernel finds
# blocked kills the process (nginx recorded was killed by SIGSYS, status
# 159, when its SIGQUIT handler ran). The agent keeps SIGSYS out of the
# kernel's masks while dispatch is on, as it keeps SIGTRAP for probes: the
# program still sees it blocked in its own mask. Both modes, recorded and
# replayed. 2) A process-directed signal that the kernel gives to the one
# thread that does not block it, while that thread waits in a read (no
# run token): the token holder, which blocks the signal, must leave it to
# that thread (serial mode; nginx's SIGQUIT handler ran on a thread-pool
# thread that blocks every signal). rr_sigblocked says which thread ran
# its handler; replayed, the handler runs there again. 3) Two threads that
# hand a turn back and forth through their own futex, made through
# syscall() (as GLib's GMutex and GCond are): in serial mode a real wait
# kept the run token in the kernel ("record stuck", the program killed);
# the wait is emulated as a yield, timeouts measured on the recorded clock.
# Sync mode does not order such futexes: record refuses at record time
# (exit 5, --force: the program's status, said as a warning), and the
# replay refuses the recording rather than differ without noticing.
. "$(dirname "$0")/lib.sh"
plan 21

P="$PROGS/rr_blockall"
"$P" libgcc_s.so.1 >native.out 2>&1
like "$(cat native.out)" "dlopen libgcc_s.so.1: ok; SIGSYS blocked: 1" \
	"natively the thread blocks SIGSYS and loads libgcc_s"
for m in serial sync; do
	spool_run record --mode "$m" -o "r.$m" -- "$P" libgcc_s.so.1
	is_rc 0 "$m: recorded, not killed by SIGSYS (159)"
	ok "$m: the output is the native one (SIGSYS and SIGQUIT blocked in the thread's own mask)" \
		cmp -s run.out native.out
	cp run.out "rec.$m.out"
	replays_same 2 0 "rec.$m.out" -o rep "r.$m"
	is "$SAME" 2 "$m: 2 replays of 2 exit 0 with the recorded output"
done

for i in 1 2; do
	timeout -k 5 60 "$SPOOL" record -o "sb$i.trace" -- "$PROGS/rr_sigblocked" >"sb$i.out" 2>"sb$i.err" &
	pid=$!
	wait_ready "sb$i.out" && kill -USR1 "$(prog_of "$pid")"
	wait "$pid"
	# shellcheck disable=SC2034 # is_rc reads it
	RC=$?
	if [ "$i" = 1 ]; then
		is_rc 0 "serial: rr_sigblocked recorded, SIGUSR1 sent from outside"
		like "$(cat sb1.out)" "read: EINTR" "its main thread's read was interrupted"
	fi
	like "$(cat "sb$i.out")" "handler ran on main" \
		"run $i: the handler ran on main, not on the worker that blocks SIGUSR1" ||
		diag "$(cat "sb$i.out" "sb$i.err")"
done
replays_same 1 0 sb1.out -o rep sb1.trace
is "$SAME" 1 "serial: its replay exits 0 with the recorded output (the handler on main)"

"$PROGS/rr_futex" 300 >fx.native
spool_run record -o fx.trace -- "$PROGS/rr_futex" 300
is_rc 0 "serial: two threads on their own futex recorded (not stuck)"
ok "the output is the native one (300 steps each, the unended wait timed out)" \
	cmp -s run.out fx.native
cp run.out fx.rec
replays_same 2 0 fx.rec -o rep fx.trace
is "$SAME" 2 "serial: 2 replays of 2 exit 0 with the recorded output"
like "$(cat fx.rec)" "steps 300 300; a wait nobody ends: ETIMEDOUT; a null address: EFAULT" \
	"the recorded output says so (and a wait on a null address fails with EFAULT, as without spool)"

spool_run record --mode sync -o fxs.trace -- "$PROGS/rr_futex" 300
like "$RC:$ERR" "^5:.*sync mode cannot replay this program: it made [0-9]+ futex calls of its own \(through syscall\(\) or its own syscall instruction.*record it in serial mode" \
	"sync: refused at record time (exit 5), saying which futexes will not replay"
ok "sync: the program ran to its end all the same (the recorded output is the native one)" \
	cmp -s run.out fx.native
spool_run replay -o rep fxs.trace
num_cmp "$RC" -ne 0 "sync: the replay is refused (a non-zero exit status)"
like "$ERR" "refusing to replay a sync recording of a program that synchronizes through its own futexes \([0-9]+ futex calls.*record it in serial mode" \
	"sync: and says why"
spool_run record --mode sync --force -o fxf.trace -- "$PROGS/rr_futex" 300
like "$RC:$ERR" "^0:.*warning: the program made [0-9]+ futex calls of its own.*spool replay refuses this recording" \
	"sync --force: the program's exit status (0), the reason as a warning"
done_testing
