#!/bin/bash
# SPDX-License-Identifier: MIT
# 115-daemon-traced-to-its-end.t - a program that daemonizes (fork, the
# first process exits at once, the child does the work: memcached -d,
# nginx, redis) is traced to its end. spool used to end with the first
# process and say "0 lock events, 0 lost" while the daemon went on writing
# into rings nobody read. Now spool waits for every process of the program
# and says so; SIGTERM to spool after the first process has exited ends the
# trace cleanly, leaves the daemon running (never signalled) and counts it:
# the trace is incomplete, exit 4, the same words in the run's summary,
# spool info and spool report. --until-first-exit ends with the first
# process, counting the daemon the same way.
. "$(dirname "$0")/lib.sh"

plan 17

# The daemon: 300 lock pairs over 0.6 s.
spool_run locks -q -- "$PROGS/daemonize" "$T_DIR/d1.pid" 300 600
is_rc 0 "a daemon that works for 0.6 s after its parent exited: spool waits, exits 0"
d1=$(cat d1.pid 2>/dev/null)
like "$ERR" "pid [0-9]+ exited; still tracing 1 process \\(daemonize, pid ${d1:-none}\\)" \
	"  and says it still traces the daemon, naming it"
is "$(summary_lost)" 0 "  nothing lost"
report_json spool.trace
is "$(lock_stat report.json daemon_lock "$F_ACQ")" 300 "  every lock of the daemon is in the trace"

# The daemon runs for 20 s: spool is stopped by SIGTERM once it has begun
# (sent to spool alone: timeout would send a second one to its group; a
# watchdog stands in for it).
"$SPOOL" locks -q -o t2 -- "$PROGS/daemonize" "$T_DIR/d2.pid" 1000 20000 \
	</dev/null >t2.out 2>t2.err &
spid=$!
(sleep 60 && kill -KILL "$spid") >/dev/null 2>&1 &
dog=$!
wait_for . d2.pid 15
sleep 0.3
kill -TERM "$spid"
wait "$spid"
is "$?" 4 "SIGTERM to spool while the daemon runs: exit 4 (the trace is incomplete)"
kill "$dog" 2>/dev/null
d2=$(cat d2.pid 2>/dev/null)
ok "  the daemon still runs (pid ${d2:-none})" kill -0 "${d2:-2147483647}"
[ -n "$d2" ] && kill -KILL "$d2" 2>/dev/null
ERR2=$(cat t2.err)
check_sanitizer t2.err "spool locks (SIGTERM)"
like "$ERR2" "1 process still running \\(daemonize, pid ${d2:-none}\\)" "  spool names the daemon it left"
like "$ERR2" "incomplete: 1 process was still running when the trace ended" \
	"  the summary says what the trace is missing"
is "$(trace_summary t2 still_running)" 1 "  the run summary counts it"
"$SPOOL" info t2 >info.out 2>&1
is "$?" 4 "spool info exits 4 on that trace"
like "$(cat info.out)" "writer: finished" "  the trace was finished cleanly"
like "$(cat info.out)" "1 process was still running when the trace ended" "  and says the same"
"$SPOOL" report --locks t2 >rep.out 2>rep.err
like "$(cat rep.err)" "incomplete: 1 process was still running when the trace ended" \
	"spool report says the same"
report_json t2
num_cmp "$(lock_stat report.json daemon_lock "$F_ACQ")" -gt 0 "  the daemon's locks until then are in it"

# --until-first-exit: the old end, no longer silent.
spool_run locks -q --until-first-exit -- "$PROGS/daemonize" "$T_DIR/d3.pid" 1000 20000
is_rc 4 "--until-first-exit: spool ends with the first process, exit 4"
wait_for . d3.pid 15
d3=$(cat d3.pid 2>/dev/null)
[ -n "$d3" ] && kill -KILL "$d3" 2>/dev/null
like "$ERR" "incomplete: 1 process was still running when the trace ended" "  the daemon is counted"
is "$(trace_summary spool.trace still_running)" 1 "  in the run summary too"
done_testing
