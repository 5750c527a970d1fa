#!/bin/bash
# SPDX-License-Identifier: MIT
# 90-loss.t - events that do not fit are counted, never silently dropped: a
# 4 KiB ring against a program doing a million lock/unlock pairs must lose
# events, and the loss must show in the summary line, in the report, and in
# the trace itself (CTF events_discarded, which babeltrace2 reports). Threads
# beyond --max-threads are counted as lost too. By default a full ring waits
# for the collector instead (--on-full wait): then nothing is lost. A run
# that lost events exits 4 (the trace is incomplete) when the program
# itself exited 0.
. "$(dirname "$0")/lib.sh"

plan 17

spool_run locks -q --ring-size 4k --on-full drop -- "$PROGS/flood" 1000000
is_rc 4 "flood 1000000 with a 4k ring and --on-full drop exits 4 (trace incomplete)"
is "$OUT" "pairs=1000000" "  the program ran to the end"
num_cmp "$(summary_lost)" -gt 0 "  the summary line reports lost events"
like "$ERR" "warning" "  with a warning"
num_cmp "$(add "$(summary_events)" "$(summary_lost)")" -ge 2000000 \
	"  recorded + lost accounts for every acquire and release"
report_json spool.trace
is "$RC" 0 "spool report reads the lossy trace (losses are not damage)"
num_cmp "$(json report.json "d['$J_TOTALS']['lost']")" -gt 0 "  the report's totals say lost > 0"
num_cmp "$(lock_stat report.json flood_lock "$F_ACQ")" -lt 1000000 \
	"  and it does not pretend every acquisition was seen"
if command -v babeltrace2 >/dev/null; then
	babeltrace2 spool.trace >bt.out 2>bt.err
	is "$?" 0 "babeltrace2 reads the lossy trace"
	like "$(cat bt.out bt.err)" "discarded" "  and reports discarded events"
else
	skip 2 "babeltrace2 not installed"
fi

# The default: a full ring makes the thread wait for the collector, so even
# a 64k ring loses nothing, and every acquisition is in the trace.
spool_run locks -q --ring-size 64k -- "$PROGS/flood" 200000
is_rc 0 "flood 200000 with a 64k ring (default --on-full wait) exits 0"
is "$(summary_lost)" 0 "  nothing is lost"
report_json spool.trace
is "$(lock_stat report.json flood_lock "$F_ACQ")" 200000 "  every acquisition is in the trace"
spool_run locks -q --on-full sometimes -- "$PROGS/flood" 10
is_rc 2 "--on-full with an unknown mode is a usage error"

spool_run locks -q --max-threads 1 -- "$PROGS/lockcount" 3 100
is_rc 4 "lockcount 3 100 with --max-threads 1 exits 4 (trace incomplete)"
is "$OUT" "total=300" "  the program ran to the end"
num_cmp "$(summary_lost)" -gt 0 "  events of threads without a ring are counted as lost"

done_testing
