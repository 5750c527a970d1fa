#!/bin/bash
# SPDX-License-Identifier: MIT
# 377-rr-rtmax.t - a program that uses SIGRTMAX itself under spool record
# and replay (doc/record.md, "Signals"; tests/progs/rr_rtmax). SIGRTMAX is
# the signal spool's SIGEV_THREAD notifiers wait for in sync mode
# (src/agent/agent_rr_sevthread.c).
#   handler: its handler, run by signals from outside, is recorded and
#     replayed like any other's (serial and sync). Before, the agent's
#     masks had no bit for signal 64: the handler ran unrecorded, and every
#     replay diverged at the next sigsuspend.
#   timer (sync): main sends itself SIGRTMAX and accepts it with
#     sigtimedwait while a SIGEV_THREAD timer runs. Before, the timer's
#     notifier, waiting for SIGRTMAX too, took the program's signal and
#     ended: "no SIGRTMAX 100: Resource temporarily unavailable", and the
#     timer stopped ("the timer still runs: 0"). The notifier now sends the
#     program's own back to the process.
#   sigwait: two from outside accepted with sigwaitinfo, then unblocked
#     (serial and sync; this one passed before too: the replays' quieting
#     of waited signals now covers signal 64 as well).
# Each: the recording shows what the program shows alone, and 2 replays
# print the recorded output (one of them sent SIGRTMAX from outside, which
# changes nothing).
. "$(dirname "$0")/lib.sh"

plan 19

PROG="$PROGS/rr_rtmax"

# rtmax_until_exit PID: SIGRTMAX every 0.1 s to the program under PID while
# it runs (at most 150)
rtmax_until_exit() {
	local pid i
	pid=$(prog_of "$1") || return 1
	for i in $(seq 150); do
		kill -s RTMAX "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
}

# rtmax_run OUT ARGS...: spool ARGS in the background, SIGRTMAX from
# outside once it printed "ready"; stdout in OUT, stderr in run.err, $RC
rtmax_run() {
	local out=$1 sp
	shift
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" "$@" >"$out" 2>run.err &
	sp=$!
	wait_ready "$out"
	rtmax_until_exit "$sp"
	wait "$sp"
	RC=$?
	check_sanitizer run.err "spool $*"
}

want_handler='ready
main: the handler ran 2 times, last si_code 0'
want_sigwait='ready
sigwaitinfo 0: SIGRTMAX, si_code 0
sigwaitinfo 1: SIGRTMAX, si_code 0
unblocked, still running'

for mode in serial sync; do
	for how in handler sigwait; do
		tr="$how-$mode"
		rtmax_run "$tr.rec.out" record -q --mode "$mode" -o "$tr.trace" -- "$PROG" "$how"
		is_rc 0 "$mode, $how: recorded, exit 0"
		want=$want_handler
		[ "$how" = sigwait ] && want=$want_sigwait
		is "$(cat "$tr.rec.out")" "$want" "$mode, $how: the program got its SIGRTMAX from outside"
		replays_same 1 0 "$tr.rec.out" -q -o "$tr.rep" "$tr.trace"
		rtmax_run run.out replay -q -o "$tr.rep2" "$tr.trace"
		if [ "$RC" = 0 ] && cmp -s run.out "$tr.rec.out"; then
			SAME=$((SAME + 1))
		else
			show_run
			diag "$(diff "$tr.rec.out" run.out | head -n 20)"
		fi
		is "$SAME" 2 "$mode, $how: 2 replays (one sent SIGRTMAX) print the recorded output"
	done
done

"$PROG" timer >timer.native.out
want_timer='got my SIGRTMAX 100 (si_code -1)
got my SIGRTMAX 101 (si_code -1)
got my SIGRTMAX 102 (si_code -1)
the timer still runs: 1
done'
is "$(cat timer.native.out)" "$want_timer" "timer, alone: main gets its SIGRTMAX, the timer runs"
for i in 1 2; do
	spool_run record -q --mode sync -o "timer-$i.trace" -- "$PROG" timer
	is_rc 0 "sync, timer ($i): recorded, exit 0"
	is "$OUT" "$want_timer" "sync, timer ($i): main got its SIGRTMAX, the notifier did not end"
	cp run.out "timer-$i.rec.out"
	replays_same 2 0 "timer-$i.rec.out" -q -o "timer-$i.rep" "timer-$i.trace"
	is "$SAME" 2 "sync, timer ($i): 2 replays print the recorded output"
done
done_testing
