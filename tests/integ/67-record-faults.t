#!/bin/bash
# SPDX-License-Identifier: MIT
# 67-record-faults.t - record/replay when things go wrong or around spool:
# a target killed by SIGKILL from outside in the middle of spool record
# (serial and sync) replays up to where its recording ends and says so;
# input system calls made through syscall() are recorded, replayed and
# reported; --until-fail in sync mode keeps a failing run whose replays
# fail the same way, with the summary line of the issue.
. "$(dirname "$0")/lib.sh"

plan 21

TICKER="$PROGS/rr_ticker"

# --- a target killed mid-record --------------------------------------------
killed() {
	local mode="$1" sp pid i
	"$SPOOL" record --mode "$mode" -o "kill-$mode.trace" -- "$TICKER" 2 \
		>"kill-$mode.rec.out" 2>"kill-$mode.rec.err" &
	sp=$!
	for i in $(seq 300); do
		[ "$(wc -l <"kill-$mode.rec.out")" -ge 20 ] && break
		sleep 0.1
	done
	pid=$(pgrep -P "$sp" | head -n 1)
	[ -n "$pid" ] && kill -KILL "$pid"
	wait "$sp"
	RC=$?
	is_rc 137 "$mode: spool record exits as the killed program (128 + SIGKILL)"
	like "$(cat "kill-$mode.rec.err")" 'killed by signal 9: the recording ends there' \
		"$mode: record says the recording ends where the program was killed"
	spool_run replay --trace-schedule --stuck-ms 5000 -o "kill-$mode.rep.trace" "kill-$mode.trace"
	is_rc 3 "$mode: the replay stops where the recording ends (exit 3)"
	like "$ERR" 'replay reached the end of the recording \(the recorded run was killed\): thread [0-9]+' \
		"$mode: ... and says where"
	# The replay prints what the killed run printed, up to the last write it
	# recorded: the recorded output, or all of it but a last line written
	# between the write and its record.
	local rec rep
	rec=$(wc -l <"kill-$mode.rec.out")
	rep=$(wc -l <run.out)
	if [ "$rep" -ge 20 ] && [ "$rep" -ge $((rec - 1)) ] && [ "$rep" -le "$rec" ] &&
		cmp -s run.out <(head -n "$rep" "kill-$mode.rec.out"); then
		pass "$mode: the replay prints the killed run's output ($rep of $rec lines)"
	else
		fail "$mode: the replay prints the killed run's output ($rep of $rec lines)"
		show_run
	fi
}
killed serial
killed sync

# --- input system calls made through syscall() ------------------------------
printf 'hello direct\n' >in.txt
spool_run record -o direct.trace -- "$PROGS/rr_direct" in.txt
is_rc 0 "rr_direct records"
like "$ERR" 'made 3 input system calls through syscall\(\) \(getrandom,read,clock_gettime\)' \
	"record reports the input calls made through syscall()"
cp run.out direct.rec.out
printf 'CHANGED\n' >in.txt
spool_run replay --trace-schedule -q -o direct.rep.trace direct.trace
if [ "$RC" = 0 ] && cmp -s run.out direct.rec.out && grep -q 'hello direct' run.out; then
	pass "their replay gives the recorded random bytes, file contents and clock"
else
	fail "their replay gives the recorded random bytes, file contents and clock"
	show_run
fi
spool_run record --mode sync -o directs.trace -- "$PROGS/rr_direct" in.txt
cp run.out directs.rec.out
printf 'hello again\n' >in.txt
spool_run replay --trace-schedule -q -o directs.rep.trace directs.trace
ok "... in sync mode too" cmp -s run.out directs.rec.out

# --- --until-fail in sync mode ----------------------------------------------
spool_run record --mode sync --until-fail 50 -o order.trace -- "$PROGS/rr_order" 3 20000
is_rc 1 "sync --until-fail: exits with the failing run's status"
like "$ERR" '^spool: run [0-9]+ failed \(exit 1\), recording kept in order.trace/ \(4 threads, [0-9]{1,3}(,[0-9]{3})+ schedule events\)$' \
	"sync --until-fail: the summary says run, status, trace, threads and schedule events"
cp run.out order.rec.out
like "$(cat order.rec.out)" 'last entry by thread [12]$' "the failing run's output is printed"
same=0
for i in 1 2 3 4 5; do
	spool_run replay --trace-schedule -q -o order.rep.trace order.trace
	if [ "$RC" = 1 ] && cmp -s run.out order.rec.out; then
		same=$((same + 1))
	else
		show_run
	fi
done
is "$same" 5 "5 sync replays fail the same way with the same output"
"$SPOOL" replay --dump-schedule order.trace >order.rec.sched 2>/dev/null
"$SPOOL" replay --dump-schedule order.rep.trace >order.rep.sched 2>/dev/null
if [ -s order.rec.sched ] && cmp -s order.rec.sched order.rep.sched; then
	pass "the replay takes the mutex in the recorded order"
else
	fail "the replay takes the mutex in the recorded order"
	diag "$(diff order.rec.sched order.rep.sched | head -n 10)"
fi
spool_run record --mode sync --until-fail 2 --check-cmd true -o order2.trace -- "$PROGS/rr_order" 1 10
is_rc 0 "sync --until-fail with nothing failing exits 0"
like "$ERR" 'no failure in 2 runs' "... and says so"

done_testing
