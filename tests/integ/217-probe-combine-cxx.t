#!/bin/bash
# SPDX-License-Identifier: MIT
# 217-probe-combine-cxx.t - probes of different kinds combine on a C++
# program named as a user names it (issue 17): func:transfer with
# args:transfer (the free function, one entry and one ret, -O2), and
# func:'Bank::transfer' with args:'Bank::transfer' (a method). The calls
# and the values read equal each probe alone; --list shows demangled names,
# and a message about a function names it demangled with its symbol.
. "$(dirname "$0")/lib.sh"
plan 10
if ! command -v g++ >/dev/null; then
	skip 10 "no g++"
	done_testing
	exit 0
fi
g++ -g -O2 -fno-omit-frame-pointer -pthread -o bank "$REPO/tests/progs/cxx/bank.cpp" 2>cc.err
ok "the C++ bank program builds" test -x bank || diag "$(cat cc.err)"

# summary TRACE FUNC: the calls of FUNC (demangled), then each variable's
# values of FUNC, sorted (the method runs in two threads)
summary() {
	"$SPOOL" report --functions --json "$1" >fn.json 2>/dev/null
	"$SPOOL" report --vars --json "$1" >vars.json 2>/dev/null
	python3 - "$2" <<'PY'
import json, sys
fn = sys.argv[1]
fs = json.load(open("fn.json"))["functions"]
print("calls", sum(f["calls"] for f in fs if f["name"] == fn))
try:
    vs = json.load(open("vars.json"))["vars"]
except Exception:
    vs = []
for v in sorted(vs, key=lambda v: (v["name"], v["where"])):
    if v["function"] != fn:
        continue
    vals = sorted(p["value"] for p in v["values"])
    print("%s@%s: %d values: %s" % (v["name"], v["where"], len(vals), " ".join(vals)))
PY
}
F='transfer(int, int, long)'
M='Bank::transfer(int, int, long)'

spool_run probe -o f.trace -e func:transfer -e 'func:Bank::transfer' -- ./bank 2 50
summary f.trace "$F" >f.sum
summary f.trace "$M" >fm.sum
spool_run probe -o a.trace -e args:transfer -- ./bank 2 50
summary a.trace "$F" >a.sum
is "$(grep -c '@' a.sum) $(grep -c ': 10 values' a.sum)" "4 4" \
	"args:transfer alone reads 3 arguments and the return value, 10 each"
spool_run probe -o am.trace -e 'args:Bank::transfer' -- ./bank 2 50
summary am.trace "$M" >am.sum

spool_run probe --list -e func:transfer -e args:transfer ./bank
like "$OUT$ERR" "transfer\\(int, int, long\\) +var +shared +\\+0x0 .*runs in probe" \
	"--list names the function demangled; args: runs in func:'s trampoline"
unlike "$OUT$ERR" "_Z8transferiil +(entry|var)" "  the symbol is not the name shown"

spool_run probe -o b.trace -e func:transfer -e args:transfer -- ./bank 2 50
is "$RC" 0 "func:transfer with args:transfer runs"
summary b.trace "$F" >b.sum
is "$(head -1 b.sum)" "$(head -1 f.sum)" "  the calls equal func: alone ($(head -1 f.sum))"
is "$(grep '@' b.sum)" "$(grep '@' a.sum)" "  the values equal args: alone"

spool_run probe -o bm.trace -e 'args:Bank::transfer' -e 'func:Bank::transfer' -- ./bank 2 50
summary bm.trace "$M" >bm.sum
is "$(head -1 bm.sum)" "$(head -1 fm.sum)" "args:'Bank::transfer' then func:: the calls equal func: alone ($(head -1 fm.sum))"
is "$(grep '@' bm.sum | grep -v '^this@')" "$(grep '@' am.sum | grep -v '^this@')" \
	"  the values equal args: alone"

# a message about a C++ function names it demangled, with its symbol
spool_run probe -o n.trace -e 'var:int:from@_ZN4Bank8transferEiil:999' -- ./bank 2 5
like "$ERR" "no code of line 999 in Bank::transfer\\(int, int, long\\) \\(_ZN4Bank8transferEiil\\)" \
	"a refusal names the method demangled, with its symbol"
done_testing
