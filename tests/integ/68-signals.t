#!/bin/bash
# SPDX-License-Identifier: MIT
# 68-signals.t - asynchronous signals under record/replay (doc/record.md,
# "Signals"): a program whose SIGUSR1 handler counts signals and notes the
# loop iteration each one interrupted gets a few SIGUSR1 at random times
# while it is recorded; five replays (one of them sent SIGUSR1 from outside,
# which a replay ignores) print exactly the recorded output. A program
# killed by an unhandled SIGTERM while recorded replays up to that point.
# Serial mode delivers at progress points: a thread that spins in
# instrumented calls, making no recorded call, runs the handler and stops
# (in sync mode, at its lock calls) while the main thread is in
# pthread_join.
# pause() and sigsuspend() wait for signals without the run token, and
# SA_RESETHAND handlers run once, then the default action kills.
. "$(dirname "$0")/lib.sh"

plan 42

PROG="$PROGS/rr_signals"

# send_usr1 SPOOLPID N [OUT]: N SIGUSR1 to the program at random
# intervals; with OUT (the program's output), keep sending one every 0.1 s
# while the program has not yet reported a handled signal and still runs,
# so a loaded machine cannot make the run end before any signal landed.
send_usr1() {
	local pid i
	pid=$(prog_of "$1") || return 1
	for i in $(seq "$2"); do
		sleep "$(printf '0.%02d' $((RANDOM % 15 + 5)))"
		kill -USR1 "$pid" 2>/dev/null
	done
	[ -n "${3:-}" ] || return 0
	for i in $(seq 50); do
		grep -qE 'signals [1-9]' "$3" 2>/dev/null && return 0
		kill -USR1 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
}

# replays3 TRACE RECOUT WANTRC DESC: three replays print RECOUT and exit
# WANTRC
replays3() {
	replays_same 3 "$3" "$2" -o rep.trace "$1"
	is "$SAME" 3 "$4"
}

for mode in serial sync; do
	"$SPOOL" record --mode "$mode" -o "$mode.trace" -- "$PROG" 400 \
		>"$mode.rec.out" 2>"$mode.rec.err" &
	sp=$!
	wait_ready "$mode.rec.out"
	send_usr1 "$sp" 4 "$mode.rec.out"
	wait "$sp"
	RC=$?
	is_rc 0 "$mode: the program records"
	n=$(sed -n 's/^signals \([0-9]*\)$/\1/p' "$mode.rec.out")
	ok "$mode: its handler ran during the recording (${n:-no} signals)" [ "${n:-0}" -ge 1 ]
	same=0
	for i in 1 2 3 4 5; do
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -o "$mode.rep.trace" "$mode.trace" \
			>run.out 2>run.err &
		rp=$!
		# The third replay is sent signals: they must change nothing.
		[ "$i" = 3 ] && wait_ready run.out && send_usr1 "$rp" 2
		wait "$rp"
		RC=$?
		check_sanitizer run.err "spool replay ($mode)"
		if [ "$RC" = 0 ] && cmp -s run.out "$mode.rec.out"; then
			same=$((same + 1))
		else
			show_run
			diag "$(diff "$mode.rec.out" run.out | head -n 20)"
		fi
	done
	is "$same" 5 "$mode: five replays print the recorded output (handler runs included)"
	like "$(cat run.err)" 'replayed [1-9][0-9]* schedule events|replayed [0-9]+ schedule events \(switches' \
		"$mode: the replay reports its events"
done

# --- a program killed by an unhandled SIGTERM while recorded ----------------
for mode in serial sync; do
	"$SPOOL" record --mode "$mode" -o "term-$mode.trace" -- "$PROG" 100000 \
		>"term-$mode.rec.out" 2>"term-$mode.rec.err" &
	sp=$!
	wait_ready "term-$mode.rec.out"
	send_usr1 "$sp" 2
	sleep 0.3
	pid=$(pgrep -P "$sp" | head -n 1)
	[ -n "$pid" ] && kill -TERM "$pid"
	wait "$sp"
	RC=$?
	is_rc 143 "$mode: spool record exits as the program killed by SIGTERM (128 + 15)"
	like "$(cat "term-$mode.rec.err")" 'killed by signal 15' \
		"$mode: record says the program died of SIGTERM"
	spool_run replay --stuck-ms 5000 -o "term-$mode.rep.trace" "term-$mode.trace"
	is_rc 3 "$mode: the replay stops where the recording ends (exit 3)"
	like "$ERR" 'replay reached the end of the recording' "$mode: ... and says so"
	rec=$(wc -l <"term-$mode.rec.out")
	rep=$(wc -l <run.out)
	if [ "$rep" -ge 2 ] && [ "$rep" -ge $((rec - 1)) ] && [ "$rep" -le "$rec" ] &&
		cmp -s run.out <(head -n "$rep" "term-$mode.rec.out"); then
		pass "$mode: the replay prints the killed run's output ($rep of $rec lines)"
	else
		fail "$mode: the replay prints the killed run's output ($rep of $rec lines)"
		show_run
	fi
done

# --- serial mode: delivery at progress points ------------------------------
# rr_sigspin-finst: the main thread waits in pthread_join, the other spins in
# instrumented calls until its handler has run twice. Without delivery at
# progress points it would spin until the timeout.
timeout -k 10 120 "$SPOOL" record -o spin.trace -- "$PROGS/rr_sigspin-finst" 2 \
	>spin.rec.out 2>spin.rec.err &
sp=$!
wait_ready spin.rec.out
usr1_until_exit "$sp"
wait "$sp"
RC=$?
cp spin.rec.err run.err
is_rc 0 "serial, progress points: the spinning program records"
like "$(cat spin.rec.out)" 'signals 2' \
	"serial, progress points: the spinning thread ran the handler twice, at progress points"
replays3 spin.trace spin.rec.out 0 \
	"serial, progress points: three replays print the recorded output (same iterations, same hash)"

# Sync mode has no progress points: the same program with a mutex taken in
# each iteration. The main thread, in pthread_join, records nothing until
# the end: the spinning thread delivers the signal at its next lock call.
timeout -k 10 120 "$SPOOL" record --mode sync -o spinlock.trace -- "$PROGS/rr_sigspin-finst" 2 lock \
	>spinlock.rec.out 2>spinlock.rec.err &
sp=$!
wait_ready spinlock.rec.out
usr1_until_exit "$sp"
wait "$sp"
RC=$?
cp spinlock.rec.err run.err
is_rc 0 "sync, pthread_join: the program records"
like "$(cat spinlock.rec.out)" 'signals 2' \
	"sync, pthread_join: the other thread ran the handler twice, at its lock calls"
replays3 spinlock.trace spinlock.rec.out 0 \
	"sync, pthread_join: three replays print the recorded output"

# --- pause() and sigsuspend() ---------------------------------------------------
# The worker finishes its 40 rounds while the main thread waits; only then
# are signals sent: in serial mode the waiting thread must have given the run
# token up.
for mode in serial sync; do
	for how in pause suspend; do
		timeout -k 10 120 "$SPOOL" record --mode "$mode" -o "$how-$mode.trace" -- \
			"$PROGS/rr_sigpause" "$how" >"$how-$mode.rec.out" 2>"$how-$mode.rec.err" &
		sp=$!
		wait_for 'worker done' "$how-$mode.rec.out"
		usr1_until_exit "$sp"
		wait "$sp"
		RC=$?
		cp "$how-$mode.rec.err" run.err
		is_rc 0 "$mode, $how: the program records"
		[ "$how" = suspend ] && w=sigsuspend || w=pause
		like "$(tr '\n' ' ' <"$how-$mode.rec.out")" "worker done 40 .*handled 3 signals in $w" \
			"$mode, $how: the worker ran while the main thread waited, which then got 3 signals"
		replays3 "$how-$mode.trace" "$how-$mode.rec.out" 0 \
			"$mode, $how: three replays print the recorded output"
	done
done

# --- SA_RESETHAND ---------------------------------------------------------------
for mode in serial sync; do
	spool_run record --mode "$mode" -o "reset-$mode.trace" -- "$PROGS/rr_sigreset"
	cp run.out "reset-$mode.rec.out"
	is_rc 138 "$mode, SA_RESETHAND: the second SIGUSR1 kills the program (128 + 10)"
	like "$(tr '\n' ' ' <run.out)" '^handled 1 disposition reset to SIG_DFL $' \
		"$mode, SA_RESETHAND: the handler ran once and the disposition became SIG_DFL"
	replays3 "reset-$mode.trace" "reset-$mode.rec.out" 3 \
		"$mode, SA_RESETHAND: three replays print the output up to the kill (exit 3)"
done

done_testing
