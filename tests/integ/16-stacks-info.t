#!/bin/bash
# SPDX-License-Identifier: MIT
# 16-stacks-info.t - `--stacks N` records call stacks that the report
# symbolizes (text and JSON), and `spool info` describes a trace and says
# when it is damaged.
. "$(dirname "$0")/lib.sh"

plan 14

spool_run locks --stacks 4 -- "$PROGS/inversion"
is_rc 0 "inversion under spool locks --stacks 4 exits 0"
like "$ERR" "^ +at lock_a_then_b\\+0x[0-9a-f]+ \\(inversion\\.c:[0-9]+\\)" \
	"the text report prints stack frames under the deadlock edges"
like "$ERR" "^ +at start_thread" "  down to the thread's start"

report_json spool.trace
is "$RC" 0 "spool report --locks --json exits 0"
cycle='d["deadlocks"][0]'
is "$(json report.json "len($cycle['edges'][0]['from_stack']) >= 2")" 1 \
	"  an edge carries a stack of at least two frames"
like "$(json report.json "[f['site'] for e in $cycle['edges'] for f in e['from_stack'][:1]]")" \
	"^lock_(a_then_b|b_then_a)\\+" "  whose innermost frame is the locking function"

# Without --stacks, no stack lines at all.
spool_run locks -- "$PROGS/inversion"
unlike "$ERR" "^ +at " "without --stacks the report prints no stack frames"

# spool info on a whole trace: the streams, the events, exit 0.
spool_run locks -q -o info.trace -- "$PROGS/lockcount" 2 500
spool_run info info.trace
is_rc 0 "spool info on a whole trace exits 0"
like "$OUT" "exit_status=0" "  it shows the run summary"
like "$OUT" "events: [0-9]+ \\(lock (4[0-9]{3}|5000)," "  and the number of lock events (4,000, plus one per contended wait)"
is "$(grep -cE '^[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ ' run.out)" 3 "  and one line per stream (3 threads)"

# A stream cut in the middle of a packet: a problem naming the file, exit 1.
f=$(ls info.trace/stream_* | head -n 1)
size=$(stat -c %s "$f")
truncate -s $((size - 7)) "$f"
spool_run info info.trace
is_rc 1 "spool info on a truncated trace exits 1"
like "$ERR" "stream_[0-9]+ at offset [0-9]+" "  naming the stream file and the offset"

spool_run info does-not-exist.trace
is_rc 1 "spool info on a missing trace exits 1"

done_testing
