#!/bin/bash
# SPDX-License-Identifier: MIT
# 102-report-same-loss.t - `spool locks` said "95,700 lost" and `spool
# report --locks` of the same trace said "0 lost": events of threads that
# found no free ring never reach a stream, so the report, reading only the
# packets, could not see them. The run's numbers are kept in the trace's
# state file, and the summary line, spool info and every report print the
# same number (a trace spool decode writes from it too).
. "$(dirname "$0")/lib.sh"

plan 12

spool_run locks -q --max-threads 1 -- "$PROGS/lockcount" 3 100
is_rc 4 "lockcount with --max-threads 1 exits 4 (events lost)"
lost=$(summary_lost)
num_cmp "$lost" -gt 0 "  the summary line counts the events of threads without a ring"
report_json spool.trace
is "$(json report.json "d['$J_TOTALS']['lost']")" "$lost" "report --locks --json says the same number"
is "$(json report.json "d['$J_TOTALS']['incomplete']")" 1 "  and that the trace is incomplete"
spool_run report --locks spool.trace
is "$(SUMMARY_FILE=run.out summary_lost)" "$lost" "report --locks (text) says the same number"
like "$ERR" "spool.trace is incomplete: $lost events lost \(.*no free ring" "  and says why"
spool_run info spool.trace
like "$OUT" "^lost: $lost events" "spool info says the same number"
spool_run decode --trace-out decoded.trace spool.trace
is_rc 0 "spool decode copies the trace"
spool_run info decoded.trace
like "$OUT" "^lost: $lost events" "  and the copy says the same number lost"

spool_run locks -q --ring-size 4k --on-full drop -- "$PROGS/flood" 200000
lost=$(summary_lost)
num_cmp "$lost" -gt 0 "a 4k ring with --on-full drop loses events"
report_json spool.trace
is "$(json report.json "d['$J_TOTALS']['lost']")" "$lost" "  report --locks --json says the same number"
spool_run info spool.trace
like "$OUT" "^lost: $lost events" "  and so does spool info"

done_testing
