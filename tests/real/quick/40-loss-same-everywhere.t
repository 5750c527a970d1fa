#!/bin/bash
# SPDX-License-Identifier: MIT
# 40-loss-same-everywhere.t - a real program's lost events are one number
# everywhere (issue 12: `spool locks` said "95,700 lost", `spool report
# --locks` of the same trace "0 lost"). pigz -p 2 runs with rings for one
# thread only (--max-threads 1): its other threads' lock events are lost,
# deterministically. The summary line, the exit status (4: the trace is
# incomplete, doc/locks.md), `spool info` and `spool report --locks`, text
# and JSON, must say the same; and pigz's output is as it is alone.
. "$(dirname "$0")/../lib.sh"
need_progs pigz
plan 10

seq 1 500000 >data
pigz -p 2 -c data >native.gz
spool_run locks -q --max-threads 1 -o l.trace -- pigz -p 2 -c data
is_rc 4 "spool locks exits 4: pigz exited 0 and the trace is incomplete"
ok "pigz's output is the native run's, byte for byte" cmp -s run.out native.gz
lost=$(summary_lost)
num_cmp "$lost" -gt 0 "the summary line counts lost events ($lost)"
like "$ERR" "incomplete: $lost events lost" "the warning gives the same number"

is "$(info_lost l.trace)" "$lost" "spool info says the same number"
"$SPOOL" info l.trace >/dev/null 2>&1
is "$?" 4 "spool info exits 4 for the incomplete trace"
report_json l.trace
is "$(json report.json "d['$J_TOTALS']['lost']")" "$lost" "spool report --locks --json says the same number"
is "$(json report.json "d['$J_TOTALS']['incomplete']")" 1 "and that the trace is incomplete"
spool_run report --locks l.trace
is "$(SUMMARY_FILE=run.out summary_lost)" "$lost" "spool report --locks says the same number"
like "$ERR" "incomplete: $lost events lost" "with the same warning"
done_testing
