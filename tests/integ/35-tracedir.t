#!/bin/bash
# SPDX-License-Identifier: MIT
# 35-tracedir.t - where the trace goes: spool.trace/ by default, -o DIR when
# given, and a previous trace is kept as DIR.old (with a message) rather than
# overwritten or mixed with the new one. What is not a spool trace is never
# moved or removed: 36-user-files.t.
. "$(dirname "$0")/lib.sh"

plan 15

spool_run locks -q -- "$PROGS/lockcount" 1 10
is_rc 0 "first run exits 0"
ok "  spool.trace/metadata written in the current directory" test -f spool.trace/metadata
is "$(summary_dir)" "spool.trace" "  the summary line names spool.trace/"

# Not -q: -q keeps only the summary line, the rename notice included.
spool_run locks -- "$PROGS/lockcount" 1 20
is_rc 0 "second run exits 0"
ok "  the first trace was kept as spool.trace.old" test -f spool.trace.old/metadata
like "$ERR" "spool\\.trace\\.old" "  and spool said so"

report_json spool.trace.old
is "$RC" 0 "the old trace still reads"
is "$(lock_stat report.json shared_lock "$F_ACQ")" 10 "  and is the first run's (10 acquisitions)"
report_json spool.trace
is "$(lock_stat report.json shared_lock "$F_ACQ")" 20 "the new trace is the second run's (20)"

spool_run locks -q -o elsewhere.trace -- "$PROGS/lockcount" 1 30
is_rc 0 "-o elsewhere.trace exits 0"
is "$(summary_dir)" "elsewhere.trace" "  the summary line names it"
report_json elsewhere.trace
is "$(lock_stat report.json shared_lock "$F_ACQ")" 30 "  the trace there is this run's"
report_json spool.trace
is "$(lock_stat report.json shared_lock "$F_ACQ")" 20 "  and spool.trace was left alone"

spool_run locks -q -- "$PROGS/lockcount" 1 40
report_json spool.trace.old
is "$(lock_stat report.json shared_lock "$F_ACQ")" 20 "a third run replaces .old with the second run's trace"

# spool report with no directory reads ./spool.trace
timeout -k 10 "$T_TIMEOUT" "$SPOOL" report --locks --json </dev/null >default.json 2>/dev/null
is "$(lock_stat default.json shared_lock "$F_ACQ")" 40 "spool report without DIR reads ./spool.trace"

done_testing
