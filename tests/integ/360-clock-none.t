#!/bin/bash
# SPDX-License-Identifier: MIT
# 360-clock-none.t - --clock=none: a trace without per-event time (the
# agent reads the clock once per packet; doc/trace-format.md, "Traces
# without per-event time"). What users rely on stays exact: the calls and
# callers of every function, per thread, the lock acquisitions, the order
# of each thread's events (the call tree). And no report shows a time the
# trace does not have: the functions, vars and locks reports print no
# duration (text) and null or no time key (JSON) and say why; the
# timeline exports and a flame graph weighed by time are refused, one
# weighed by calls is written; spool path (the threads' order among each
# other) is refused; babeltrace2 still reads the trace. The same runs
# with --clock=tsc (the default) still show their times.
. "$(dirname "$0")/lib.sh"

plan 34

# --- spool probe: functions and a time: probe ---------------------------------
spool_run probe -q --clock=none -o none.trace -e 'func:probe_*' -e 'time:probe_leaf_add' \
	-- "$PROGS/probe_calls" 300
is_rc 0 "probe_calls runs under spool probe --clock=none"
spool_run probe -q --clock=tsc -o tsc.trace -e 'func:probe_*' -e 'time:probe_leaf_add' \
	-- "$PROGS/probe_calls" 300
is_rc 0 "and under --clock=tsc"
grep -q 'spool_event_time = "packet";' none.trace/metadata
is "$?" 0 "the metadata says the trace's event time is per packet"
grep -q 'spool_event_time' tsc.trace/metadata
is "$?" 1 "  a --clock=tsc trace's metadata does not"

"$SPOOL" report --functions --json none.trace >none.json 2>report.err
is "$?" 0 "report --functions --json reads the --clock=none trace"
"$SPOOL" report --functions --json tsc.trace >tsc.json 2>>report.err
calls() { json "$1" "sorted('%s %d' % (f['name'], f['calls']) for f in d['functions'])"; }
callers() {
	json "$1" "sorted('%s<-%s %d' % (f['name'], c['name'], c['calls']) for f in d['functions'] for c in f['callers'])"
}
is "$(calls none.json)" "$(calls tsc.json)" "  every function's calls equal those of the --clock=tsc run"
like "$(calls none.json)" 'probe_fib 465' "  (fib(12): 465 calls, by construction)"
is "$(callers none.json)" "$(callers tsc.json)" "  and its callers (the call tree, from each thread's order)"
is "$(json none.json "d.get('event_time')")" packet "  the JSON says event_time packet"
is "$(json none.json "sum(1 for f in d['functions'] for k in f if k.endswith('_ns'))")" 0 \
	"  and has no time key (no total_ns, min_ns, ...)"
json_true tsc.json "all(f['total_ns'] > 0 for f in d['functions'])"
is "$?" 0 "  the --clock=tsc report has its times (the default unchanged)"

"$SPOOL" report --functions none.trace >none.txt 2>>report.err
like "$(cat none.txt)" 'no per-event time, spool --clock=none' "the text report says the trace has no per-event time"
unlike "$(cat none.txt)" 'total ms|min us|avg us|max us' "  and shows no time column"
like "$(grep -E '^probe_fib ' none.txt)" '^probe_fib +465$' "  a row is the function and its calls"
like "$("$SPOOL" report --functions tsc.trace 2>/dev/null | head -n 3)" 'total ms' \
	"  the --clock=tsc text report has its time columns"

"$SPOOL" report --vars none.trace >vars.txt 2>>report.err
like "$(grep -E '^time:probe_leaf_add ' vars.txt)" '^time:probe_leaf_add +600 +- +- +- +-$' \
	"report --vars: the time: probe's count (600), its durations '-'"
"$SPOOL" report --vars --json none.trace >vars.json 2>>report.err
json_true vars.json "[[t['count'], t['total_ns'], t['max_ns']] for t in d['times']] == [[600, None, None]] and d['event_time'] == 'packet'"
is "$?" 0 "  JSON: its count, its durations null"
unlike "$(cat report.err)" 'ERROR|error|AddressSanitizer' "the reports said no error"

# --- export, path, info ---------------------------------------------------
"$SPOOL" export --perfetto -w none.pftrace none.trace >/dev/null 2>export.err
rc=$?
ok "export --perfetto is refused, no file written" test "$rc" -ne 0 -a ! -e none.pftrace
like "$(cat export.err)" 'no per-event time.*--clock=none.*timeline' "  saying why"
"$SPOOL" export --chrome -w chrome.out none.trace >/dev/null 2>export.err
rc=$?
ok "export --chrome is refused, no file written" test "$rc" -ne 0 -a ! -e chrome.out
"$SPOOL" export --folded -w t.folded none.trace >/dev/null 2>export.err
rc=$?
ok "export --folded (weighed by time) is refused" test "$rc" -ne 0 -a ! -e t.folded
like "$(cat export.err)" 'weight calls' "  naming --weight calls"
"$SPOOL" export --folded --weight calls -w c.folded none.trace >/dev/null 2>export.err
is "$?" 0 "export --folded --weight calls writes the calls"
is "$(awk '$1 ~ /probe_fib$/ { n += $2 } END { print n }' c.folded)" 465 "  fib's calls in it: 465"
"$SPOOL" path none.trace >/dev/null 2>path.err
rc=$?
ok "spool path refuses the trace" test "$rc" -ne 0
like "$(cat path.err)" 'no per-event time' "  saying why"
like "$("$SPOOL" info none.trace 2>&1)" 'event time: per packet' "spool info says the event time is per packet"

# --- babeltrace2 --------------------------------------------------------------
if command -v babeltrace2 >/dev/null; then
	n=$(bt_count none.trace spool:probe)
	is "$?" 0 "babeltrace2 reads the --clock=none trace"
	is "$n" "$(bt_count tsc.trace spool:probe)" "  the same number of probe events as the --clock=tsc trace"
else
	skip 2 "babeltrace2 is not installed (scripts/deps.sh)"
fi

# --- spool locks ------------------------------------------------------------
# lockcount 2 500: 2 x 500 acquisitions of the shared mutex, 500 of each
# thread's own: 2000 by construction
spool_run locks -q --clock=none -o locks.trace -- "$PROGS/lockcount" 2 500
is_rc 0 "lockcount runs under spool locks --clock=none"
report_json locks.trace
is "$(json report.json "sum(l['write']['acquisitions'] for l in d['locks'])")" 2000 \
	"  its lock report counts the 2000 acquisitions"
json_true report.json "all(l['write']['wait']['total_ns'] is None and l['write']['hold']['max_ns'] is None and l['hold_total_ns'] is None for l in d['locks']) and d['trace']['event_time'] == 'packet'"
is "$?" 0 "  JSON: every wait and hold time null, event_time packet"
"$SPOOL" report --locks locks.trace >locks.txt 2>/dev/null
like "$(grep -E '^ +shared_lock ' locks.txt | head -n 1)" '^ +shared_lock +mutex +1,000 +[0-9,]+( \([0-9.]+%\))? +- +- +- +- +2$' \
	"  text: shared_lock's 1,000 acquisitions, its wait and hold times '-'"

done_testing
