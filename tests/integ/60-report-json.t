#!/bin/bash
# SPDX-License-Identifier: MIT
# 60-report-json.t - the report as a program reads it: `spool report --locks
# --json` on stdout follows schema spool-locks/1 (doc/report-locks.md) and
# agrees with the run's summary line; `spool locks --json` puts the same JSON
# on stderr; --sort and --limit shape the text tables.
. "$(dirname "$0")/lib.sh"

plan 32

spool_run locks -q -- "$PROGS/lockcount" 3 1000 20
is_rc 0 "lockcount 3 1000 20 exits 0"
cp run.err locks.err
SUMMARY_FILE=locks.err

report_json spool.trace
is "$RC" 0 "spool report --locks --json exits 0"
is "$ERR" "" "  and says nothing on stderr"
is "$(json report.json 'd["schema"]')" "spool-locks/1" "  schema spool-locks/1"
is "$(json report.json 'd["trace"]["lock_events"]')" "$(summary_events)" \
	"  its lock_events equal the summary line's"
is "$(json report.json 'd["trace"]["lost"]')" 0 "  lost 0"
ok "  every lock has the documented keys" json_true report.json \
	'all(all(k in l for k in ("index", "name", "type", "addr", "pid", "acquisitions",
	 "contended", "wait_total_ns", "hold_total_ns", "write", "read", "cond", "barrier",
	 "sites")) for l in d["locks"])'
is "$(json report.json '[l["type"] for l in d["locks"] if l["name"] == "shared_lock"]')" \
	mutex "  shared_lock is a mutex"
is "$(lock_stat report.json shared_lock acquisitions)" 3000 "  with 3000 acquisitions"
ok "  a lock's wait total covers its write side's" json_true report.json \
	'all(l["wait_total_ns"] >= l["write"]["wait"]["total_ns"] for l in d["locks"]
	     if l["write"])'
num_cmp "$(json report.json 'len([t for t in d["threads"] if t["acquisitions"] == 2000])')" \
	-eq 3 "  3 worker threads with 2000 acquisitions each (1000 shared + 1000 own)"
num_cmp "$(json report.json 'sum(l["contended"] for l in d["locks"])')" -eq \
	"$(json report.json 'sum(t["contended"] for t in d["threads"])')" \
	"  contended per lock and per thread agree"

# spool locks --json: the same JSON on stderr, stdout untouched.
timeout -k 10 "$T_TIMEOUT" "$SPOOL" locks --json -o j.trace -- "$PROGS/lockcount" 2 100 \
	</dev/null >j.out 2>j.err
is "$?" 0 "spool locks --json exits 0"
is "$(cat j.out)" "total=200" "  stdout is the program's only"
grep -v '^spool: ' j.err >j.json
is "$(json j.json 'd["schema"]')" "spool-locks/1" "  stderr holds the JSON report (besides spool: lines)"
is "$(lock_stat j.json shared_lock acquisitions)" 200 "  with the counts of that run"

# Text: --sort and --limit (4 mutexes: shared_lock and one per thread).
spool_run report --locks --sort acq --limit 0 spool.trace
is_rc 0 "text report --sort acq --limit 0 exits 0"
all_lines=$(wc -l <run.out)
like "$OUT" "shared_lock" "  shows shared_lock"
spool_run report --locks --sort acq --limit 1 spool.trace
is_rc 0 "text report --sort acq --limit 1 exits 0"
num_cmp "$(wc -l <run.out)" -lt "$all_lines" "  --limit 1 prints fewer rows than --limit 0"

spool_run report --locks does-not-exist.trace
is_rc 1 "report on a missing directory exits 1"

# Without --KIND: the report the trace was made for.
spool_run report --locks --limit 0 spool.trace
cp run.out locks.txt
spool_run report --limit 0 spool.trace
ok "a lock trace gives the lock report by default" cmp -s run.out locks.txt
spool_run probe -q -o probe.trace -e 'func:probe_*' -e 'block:probe_fib' -- \
	"$PROGS/probe_calls" 50
spool_run report --functions probe.trace
cp run.out funcs.txt
spool_run report --coverage probe.trace
cp run.out cov.txt
spool_run report probe.trace
is_rc 0 "a probe trace without --KIND"
is "$(grep '^== ' run.out)" "== spool report --functions ==
== spool report --coverage ==" "... gives every report it was made for, each under its heading"
# section NAME: the lines under '== spool report --NAME ==', without the
# blank line before the next heading
section() {
	awk -v h="== spool report --$1 ==" '$0 == h { f = 1; next } /^== spool report --/ { f = 0 } f' \
		run.out | sed '${/^$/d}'
}
ok "... the function report first, as --functions prints it" cmp -s <(section functions) funcs.txt
ok "... then the coverage report, as --coverage prints it" cmp -s <(section coverage) cov.txt
ok "... and no lock report: the program's lock events are thread events only" \
	test "$(grep -c 'locks: none seen' run.out)" = 0
spool_run report --json probe.trace
is_rc 0 "--json without --KIND"
ok "... prints one JSON document (the function report)" python3 -c 'import json,sys; json.load(open("run.out"))'
like "$ERR" 'also has --coverage' "... and names the other report it can give"
# A probe trace of a program that takes locks holds lock events too.
spool_run probe -q -o lp.trace -e 'func:worker' -- "$PROGS/lockcount" 2 1000
spool_run report lp.trace
is "$(grep '^== ' run.out)" "== spool report --functions ==
== spool report --locks ==" "a probe trace with lock events gives the function and the lock reports"
like "$(cat run.out)" "shared_lock" "... the lock report names the program's lock"

done_testing
