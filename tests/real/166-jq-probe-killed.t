#!/bin/bash
# SPDX-License-Identifier: MIT
# 166-jq-probe-killed.t - spool probe killed with SIGKILL while Debian's jq
# sorts 40,000 objects under func:libjq.so*:jv_* probes: jq runs on and its
# output is whole, and the partial trace spool left (DIR.writing.PID) is
# read to its last whole packet: spool report --functions names libjq's
# jv_* functions and counts their calls, and says the trace is incomplete
# (it said "has no probe table: not a trace of spool probe": the table
# was written only when the run ended; tests/integ/380).
. "$(dirname "$0")/lib.sh"
need_progs jq
plan 5

"$REAL_PY" -c '
import json, random
random.seed(166)
print(json.dumps([{"k": random.random(), "s": str(i)} for i in range(40000)]))' >in.json
jq -c 'sort_by(.k) | map(.s) | .[0:5]' in.json >native.out
# a copy under a name of this test's: its process is found by name
cp "$(command -v jq)" "$T_DIR/jq166"

"$SPOOL" probe -q -e 'func:libjq.so*:jv_*' -o "$T_DIR/p.trace" -- "$T_DIR/jq166" -c \
	'sort_by(.k) | map(.s) | .[0:5]' in.json >run.out 2>probe.err </dev/null &
SPID=$!
big=""
for ((i = 0; i < 1200; i++)); do
	big=$(find "$T_DIR" -path "*/p.trace.writing.$SPID/stream_*" -size +64k 2>/dev/null | head -1)
	[ -n "$big" ] && break
	sleep 0.05
done
JPID=$(pgrep -P "$SPID" | head -1)
kill -9 "$SPID"
wait "$SPID" 2>/dev/null
ok "spool probe killed after packets of jq's calls reached the disk" test -n "$big"
# jq runs on to its end (60 s at most; alone it takes a second)
for ((i = 0; i < 1200; i++)); do
	[ -n "$JPID" ] && [ -d "/proc/$JPID" ] && [ "$(cut -d' ' -f3 "/proc/$JPID/stat" 2>/dev/null)" != Z ] || break
	sleep 0.05
done
[ -n "$JPID" ] && kill -9 "$JPID" 2>/dev/null
ok "jq runs on after spool's death: its output is whole" cmp -s run.out native.out

spool_run report --functions "p.trace.writing.$SPID"
is_rc 0 "spool report --functions reads the partial trace"
like "$OUT" '^jv_[a-z_0-9]* +[1-9][0-9]* ' "  and counts the calls of libjq's jv_* functions"
like "$ERR" "incomplete: its writer did not finish" "  and says the trace is incomplete"
done_testing
