#!/bin/bash
# SPDX-License-Identifier: MIT
# 215-probe-combine-func-args.t - a func: and an args: probe of one function
# combine (issue 17): at -O2 both go at the function's first instruction
# and at its ret, and the second runs in the first's trampoline. The calls
# the function report counts and every argument and return value read must
# equal what each probe gives alone, whichever spec comes first; --list
# says which probe's trampoline runs the second.
. "$(dirname "$0")/lib.sh"
plan 11
P="$PROGS/probe_combine"

# summary TRACE: "calls N" of transfer, then "NAME@WHERE: v1 v2 ..." per
# variable in the order the values were read
summary() {
	"$SPOOL" report --functions --json "$1" >fn.json 2>/dev/null
	"$SPOOL" report --vars --json "$1" >vars.json 2>/dev/null
	python3 - <<'PY'
import json
fs = json.load(open("fn.json"))["functions"]
print("calls", sum(f["calls"] for f in fs if f["name"] == "transfer"))
try:
    vs = json.load(open("vars.json"))["vars"]
except Exception:
    vs = []
for v in sorted(vs, key=lambda v: (v["name"], v["where"])):
    vals = [p["value"] for p in sorted(v["values"], key=lambda p: p["ns"])]
    print("%s@%s: %s" % (v["name"], v["where"], " ".join(vals)))
PY
}

spool_run probe -o func.trace -e func:transfer -- "$P" 20
is "$RC" 0 "func:transfer alone runs"
summary func.trace >func.sum
spool_run probe -o args.trace -e args:transfer -- "$P" 20
is "$RC" 0 "args:transfer alone runs"
summary args.trace >args.sum
grep -v '^calls' args.sum >args.vals
is "$(grep -c '' args.vals) $(grep '^from@entry' args.vals | wc -w)" "4 21" \
	"  args: alone read from, to, amount and the return value, 20 values each"

spool_run probe --list -e func:transfer -e args:transfer "$P"
like "$ERR$OUT" "transfer +var +shared +\\+0x0 .*runs in probe [0-9]+'s trampoline \\(entry jump of func:transfer\\)" \
	"--list: the args: entry runs in the func: entry's trampoline"
unlike "$ERR$OUT" "another probe|cannot also" "  no conflict is reported"

spool_run probe -o both.trace -e func:transfer -e args:transfer -- "$P" 20
is "$RC" 0 "func: then args: of one function runs"
unlike "$ERR" "another probe|cannot also|skipped" "  nothing is refused or skipped"
summary both.trace >both.sum
is "$(head -1 both.sum)" "$(head -1 func.sum)" "  the calls equal func: alone ($(head -1 func.sum))"
is "$(grep -v '^calls' both.sum)" "$(cat args.vals)" "  every argument and return value equals args: alone"

spool_run probe -o rev.trace -e args:transfer -e func:transfer -- "$P" 20
summary rev.trace >rev.sum
is "$(head -1 rev.sum)" "$(head -1 func.sum)" "args: then func:: the calls equal func: alone"
is "$(grep -v '^calls' rev.sum)" "$(cat args.vals)" "  and the values equal args: alone"
done_testing
