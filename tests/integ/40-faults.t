#!/bin/bash
# SPDX-License-Identifier: MIT
# 40-faults.t - programs that crash, abort, are killed, or whose spool is
# sent SIGTERM: spool exits 128+N like a shell would report, and the trace
# is complete and readable up to the end, with every event from before the
# fault.
. "$(dirname "$0")/lib.sh"

plan 28

# fault_case DESC STATUS LOCK ACQ PROG ARGS...
fault_case() {
	local desc="$1" status="$2" lock="$3" acq="$4"
	shift 4
	rm -rf spool.trace spool.trace.old
	spool_run locks -q -- "$PROGS/$@"
	is_rc "$status" "$desc: spool exits $status"
	like "$OUT" "^pairs=" "  the program's output before the fault is there"
	like "$(summary_line)" . "  the summary line is printed"
	report_json spool.trace
	is "$RC" 0 "  spool report reads the trace (exit 0)"
	is "$(lock_stat report.json "$lock" "$F_ACQ")" "$acq" \
		"  all $acq acquisitions from before the fault are in it"
	bt_count spool.trace >/dev/null
	is "$?" 0 "  babeltrace2 reads it"
}

fault_case "SIGSEGV" 139 crash_lock 500 crash 500
fault_case "abort()" 134 abort_lock 501 abort 500
fault_case "SIGKILL" 137 kill_lock 500 killself kill 500
fault_case "SIGTERM" 143 kill_lock 500 killself term 500

spool_run locks -q -- "$PROGS/crash" 10
like "$ERR" "signal 11|SIGSEGV|Segmentation" "spool says the program died of SIGSEGV"

# SIGTERM sent to spool itself while the program runs: spool passes it on,
# the program dies of it, and the trace is still whole.
rm -rf spool.trace
# (Not under timeout(1): the signal must reach spool itself. If spool did not
# forward it, sleep ends the run after 60 s and the status check fails.)
"$SPOOL" locks -q -- /bin/sh -c \
	"$PROGS/lockcount 1 100; echo started; exec sleep 60" </dev/null >term.out 2>term.err &
spid=$!
for _ in $(seq 300); do
	grep -q started term.out 2>/dev/null && break
	sleep 0.1
done
kill -TERM "$spid"
wait "$spid"
RC=$?
is "$RC" 143 "SIGTERM to spool: forwarded, the program dies of it, spool exits 143"
report_json spool.trace
is "$RC" 0 "  the trace reads"
is "$(lock_stat report.json shared_lock "$F_ACQ")" 100 "  with the events from before the signal"

done_testing
