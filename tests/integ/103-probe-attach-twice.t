#!/bin/bash
# SPDX-License-Identifier: MIT
# 103-probe-attach-twice.t - a second `spool probe -p PID` on a process an
# earlier one attached to used to place 0 probes, blame the program ("the
# agent did not place the probes (the program did not start with it, or
# exited first)") and exit 0: the agent's "already recording" answer, an int
# in eax, was read as a 64-bit value and looked like success. Now it fails
# with the reason and leaves the program as it was; the same for a program
# started under spool.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 9

wait_line() {
	local i
	for i in $(seq 1 100); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

rm -f stop.now
"$PROG" 60 stop.now >prog.out &
PID=$!
wait_line prog.out
spool_run probe -q -p "$PID" -e 'func:attach_work' --duration 300ms -o first.trace
is_rc 0 "a first spool probe -p attaches and detaches"
spool_run probe -q -p "$PID" -e 'func:attach_work' --duration 300ms -o second.trace
is_rc 1 "a second spool probe -p on the same process fails"
like "$ERR" "already has spool's agent recording in it" "  saying the agent is already in it"
unlike "$ERR" "did not place the probes" "  not blaming the program"
touch stop.now
wait "$PID"
is "$?" 0 "the program runs on and exits normally"
like "$(tail -n 1 prog.out)" '^done calls [0-9]+ check ok$' "  with correct results"

# a program started under spool probe has the agent from the start
rm -f stop.now
"$SPOOL" probe -q -e 'func:attach_work' -o under.trace -- "$PROG" 60 stop.now >prog2.out 2>under.err &
SP=$!
wait_line prog2.out
PID=$(pgrep -P "$SP" | head -n 1)
spool_run probe -q -p "$PID" -e 'func:attach_work' --duration 300ms -o third.trace
is_rc 1 "spool probe -p on a program running under spool probe fails"
like "$ERR" "already has spool's agent recording in it" "  saying so"
touch stop.now
wait "$SP"
is "$?" 0 "that program and its spool probe finish normally"

done_testing
