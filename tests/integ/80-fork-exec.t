#!/bin/bash
# SPDX-License-Identifier: MIT
# 80-fork-exec.t - a fork child's lock events and those of a program a child
# execs are recorded in the same trace as the parent's, with their own pid,
# and counted exactly.
. "$(dirname "$0")/lib.sh"

plan 16

# pids_with LOCK: how many distinct pids have a lock named LOCK in report.json.
pids_with() {
	json report.json "len(set(l.get('pid') for l in d['$J_LOCKS'] if l.get('$J_NAME') == '$1'))"
}

spool_run locks -q -- "$PROGS/forker" 1000
is_rc 0 "forker 1000 under spool exits 0"
is "$OUT" "parent=2000 child=2000" "  its output is its own"
is "$(summary_lost)" 0 "  nothing lost"
report_json spool.trace
is "$RC" 0 "  the report reads the trace"
is "$(lock_stat report.json fork_lock "$F_ACQ")" 4000 \
	"  fork_lock: 2000 in the parent + 2000 in the child"
is "$(pids_with fork_lock)" 2 "  in two processes"
is "$(trace_summary spool.trace processes)" 2 "  the run summary counts 2 processes"
bt_count spool.trace >/dev/null
is "$?" 0 "  babeltrace2 reads it"

spool_run locks -q -- "$PROGS/forker" exec "$PROGS/lockcount" 2 500
is_rc 0 "forker exec lockcount 2 500 exits 0"
is "$OUT" "total=1000
parent=1000" "  both programs' output, in order"
is "$(summary_lost)" 0 "  nothing lost"
report_json spool.trace
is "$RC" 0 "  the report reads the trace"
is "$(lock_stat report.json fork_lock "$F_ACQ")" 1000 "  fork_lock: 1000 in the parent"
is "$(lock_stat report.json shared_lock "$F_ACQ")" 1000 "  shared_lock: 2 x 500 in the exec'd lockcount"
num_cmp "$(trace_summary spool.trace processes)" -ge 2 "  the exec'd image is a process of the trace"
bt_count spool.trace >/dev/null
is "$?" 0 "  babeltrace2 reads it"

done_testing
