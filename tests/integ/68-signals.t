#!/bin/bash
# SPDX-License-Identifier: MIT
# 68-signals.t - asynchronous signals under record/replay (doc/record.md,
# "Signals"): a program whose SIGUSR1 handler counts signals and notes the
# loop iteration each one interrupted gets a few SIGUSR1 at random times
# while it is recorded; five replays (one of them sent SIGUSR1 from outside,
# which a replay ignores) print exactly the recorded output. A program
# killed by an unhandled SIGTERM while recorded replays up to that point.
. "$(dirname "$0")/lib.sh"

plan 18

PROG="$PROGS/rr_signals"

# wait_ready FILE: until the program printed its first line
wait_ready() {
	local i
	for i in $(seq 300); do
		grep -q ready "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# send_usr1 SPOOLPID N [OUT]: N SIGUSR1 to spool's child at random
# intervals; with OUT (the program's output), keep sending one every 0.1 s
# while the program has not yet reported a handled signal and still runs,
# so a loaded machine cannot make the run end before any signal landed.
send_usr1() {
	local pid i
	pid=$(pgrep -P "$1" | head -n 1)
	[ -n "$pid" ] || return 1
	for i in $(seq "$2"); do
		sleep "0.$((RANDOM % 15 + 5))"
		kill -USR1 "$pid" 2>/dev/null
	done
	[ -n "${3:-}" ] || return 0
	for i in $(seq 50); do
		grep -qE 'signals [1-9]' "$3" 2>/dev/null && return 0
		kill -USR1 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
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
	if [ "$mode" = serial ]; then
		# Known bug: a serial recording sometimes handles none of the
		# signals sent (twice in CI runs, never when run alone).
		todo_ok "serial mode can lose signals, see doc/record.md" \
			"$mode: its handler ran during the recording (${n:-no} signals)" [ "${n:-0}" -ge 1 ]
	else
		ok "$mode: its handler ran during the recording (${n:-no} signals)" [ "${n:-0}" -ge 1 ]
	fi
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

done_testing
