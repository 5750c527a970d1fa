#!/bin/bash
# SPDX-License-Identifier: MIT
# 216-probe-combine-block.t - a block: counter whose block starts where
# another kind of probe is (issue 17): a func: entry at a function's first
# block, an assert: or var: probe at a function's entry. The block is
# counted in the other probe's trampoline: the per-line counts of the lcov
# file, the call count and the assertion's outcome must equal each probe
# alone. func: and var: at one entry combine the same way.
. "$(dirname "$0")/lib.sh"
plan 13
P="$PROGS/probe_combine"

da() { # da TRACE: the DA: lines of the coverage lcov file
	"$SPOOL" report --coverage -w "$1.info" "$1" >/dev/null 2>&1
	grep '^DA:' "$1.info" | tr '\n' ' '
}
calls() { # calls TRACE FUNC
	"$SPOOL" report --functions --json "$1" 2>/dev/null |
		python3 -c 'import json,sys; print(sum(f["calls"] for f in json.load(sys.stdin)["functions"] if f["name"] == sys.argv[1]))' "$2"
}

# func: + block: at transfer's first block
spool_run probe -o b.trace -e block:transfer -- "$P" 20
B=$(da b.trace)
like "$B" "DA:[0-9]+,20" "block:transfer alone counts its lines 20 times"
spool_run probe -o f.trace -e func:transfer -- "$P" 20
spool_run probe -o fb.trace -e func:transfer -e block:transfer -- "$P" 20
is "$RC" 0 "func:transfer with block:transfer runs"
is "$(da fb.trace)" "$B" "  the line counts equal block: alone"
is "$(calls fb.trace transfer)" "$(calls f.trace transfer)" "  the calls equal func: alone"

# assert: + block: at check's entry (its first block is 2 instructions,
# both under the assertion's jump)
spool_run probe -o c.trace -e block:check -- "$P" 20
C=$(da c.trace)
spool_run probe -o a.trace -e 'assert:v<limit@check' -- "$P" 20
A=$(grep '^assertion' run.err)
like "$A" "10 true, 10 false" "assert: alone: 10 true, 10 false"
spool_run probe --list -e 'assert:v<limit@check' -e block:check "$P"
like "$ERR$OUT" "check +block +shared +\\+0x0 .*runs in probe [0-9]+'s trampoline \\(var jump of assert:v<limit@check\\)" \
	"--list: check's first block is counted in the assertion's trampoline"
spool_run probe -o ab.trace -e 'assert:v<limit@check' -e block:check -- "$P" 20
is "$RC" 0 "assert: with block: of one function runs"
unlike "$ERR" "not counted|another probe" "  no block is left out"
is "$(da ab.trace)" "$C" "  the line counts equal block: alone"
is "$(grep '^assertion' run.err)" "$A" "  the assertion's outcome equals assert: alone"

# func: + var: at transfer's entry
spool_run probe -o v.trace -e 'var:auto:amount@transfer' -- "$P" 20
V=$(grep -A30 '^variable amount' run.err | awk 'NF == 3 && $1 ~ /^[0-9.]+$/ { print $3 }' | tr '\n' ' ')
is "$(echo $V | wc -w)" 20 "var: alone reads amount 20 times"
spool_run probe -o fv.trace -e func:transfer -e 'var:auto:amount@transfer' -- "$P" 20
is "$(grep -A30 '^variable amount' run.err | awk 'NF == 3 && $1 ~ /^[0-9.]+$/ { print $3 }' | tr '\n' ' ')" \
	"$V" "func: with var: at the entry: the values equal var: alone"
is "$(calls fv.trace transfer)" "$(calls f.trace transfer)" "  the calls equal func: alone"
done_testing
