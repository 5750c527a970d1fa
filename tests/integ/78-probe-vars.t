#!/bin/bash
# SPDX-License-Identifier: MIT
# 78-probe-vars.t - variable, assertion and time probes (spool probe -e
# var: -e assert: -e time:, spool report --vars).
#
# The program (tests/progs/probe_vars.c) prints the char, int, long, float,
# double and long double it computes in compute(), with the precision the
# report uses; the variable probes at compute's exit must read exactly
# those values (the report's values, joined in the program's format, must
# equal its lines). Built here at -O0 -g (locations in the frame, read
# through the CFA) and at -O2 -g (parameters in registers at the entry:
# k in rdi, scale in xmm0). check(x, limit) runs for x = 0 .. 2N-1 with
# limit N, so "x < limit" holds N times and fails N times, first at x = N.
# nap(ms) sleeps 3 times: time:nap must see 3 calls of at least ms each.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 17

cp "$REPO/tests/progs/probe_vars.c" probe_vars.c
ok "the test program builds at -O0 -g and -O2 -g" \
	sh -c 'gcc -O0 -g -o pv0 "$PWD/probe_vars.c" && gcc -O2 -g -o pv2 "$PWD/probe_vars.c"'

N=6
# --- -O0: every type, read at the exit -----------------------------------------
native="$(./pv0 $N 5)"
spool_run probe -e 'var:char:c@compute:exit' -e 'var:int:i@compute:exit' \
	-e 'var:long:l@compute:exit' -e 'var:float:f@compute:exit' \
	-e 'var:double:d@compute:exit' -e 'var:longdouble:ld@compute:exit' \
	-e 'var:auto:g_total@compute:27' -- ./pv0 $N 5
is_rc 0 "spool probe with variable probes runs the program"
is "$OUT" "$native" "the program's output is unchanged"
like "$ERR" 'variable ld \(longdouble\) at compute:exit: 6 values' "a value timeline at exit"

spool_run report --vars --json spool.trace
is_rc 0 "spool report --vars --json"
cp run.out vars0.json
got="$(python3 - vars0.json <<'PY'
import json, sys
v = {x["name"]: x for x in json.load(open(sys.argv[1]))["vars"]}
n = len(v["c"]["values"])
for k in range(n):
    g = lambda name: v[name]["values"][k]["value"]
    print("c=%s i=%s l=%s f=%s d=%s ld=%s" % (g("c"), g("i"), g("l"), g("f"), g("d"), g("ld")))
PY
)"
want="$(printf '%s\n' "$native" | grep '^c=')"
is "$got" "$want" "char, int, long, float, double, long double read as the program printed them"
tot="$(printf '%s\n' "$native" | sed -n 's/.* total=//p')"
got="$(python3 -c 'import json,sys; v=[x for x in json.load(open(sys.argv[1]))["vars"] if x["name"]=="g_total"][0]; print(v["max"], v["count"])' vars0.json)"
# the global is read at line 27, after the last += : its max is the final total
is "$got" "$tot $N" "a global long double (fixed address) read at a source line"

# --- -O2: parameters in registers at the entry -------------------------------
spool_run probe -q -e 'var:double:scale@compute' -e 'var:int:k@compute' -- ./pv2 $N 5
is_rc 0 "-O2: variable probes at the entry"
like "$(cat spool.trace/.spool/vars)" 'double scale compute entry 1 xmm0' \
	"-O2: scale is read from xmm0 (DWARF location at the entry)"
spool_run report --vars --json spool.trace
got="$(python3 -c 'import json,sys; v={x["name"]:x for x in json.load(open(sys.argv[1]))["vars"]}; print(" ".join(p["value"] for p in v["k"]["values"]), "/", " ".join(sorted(set(p["value"] for p in v["scale"]["values"]))))' run.out)"
is "$got" "$(seq -s ' ' 0 $((N - 1))) / 1.5" "-O2: k (rdi) and scale (xmm0) read as passed"

# --- assertions and time probes ------------------------------------------------
spool_run probe -q -e 'assert:x < limit@check' -e 'assert:(x + limit) / 2 >= 0 || x == 0@check:exit' \
	-e 'time:nap' -e 'time:compute..check' -- ./pv0 $N 20
is_rc 0 "assertion and time probes"
spool_run report --vars --json spool.trace
cp run.out t.json
got="$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["asserts"]; print(a[0]["true"], a[0]["false"], a[0]["first_failure"]["values"], a[1]["true"], a[1]["false"])' t.json)"
is "$got" "$N $N x=$N limit=$N $((2 * N)) 0" \
	"x < limit holds $N times, fails $N times, first at x=$N; a true one never fails"
got="$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["times"]; print(t[0]["count"], int(t[0]["min_ns"] >= 20e6), int(t[0]["total_ns"] >= 60e6), t[1]["count"])' t.json)"
is "$got" "3 1 1 1" "time:nap: 3 calls of at least 20 ms; time:compute..check: one span"
spool_run report --vars spool.trace
like "$OUT" 'first false at [0-9.]+ ms, tid [0-9]+: x=6 limit=6' "the text report names the first failing hit"

# --- bad specs -----------------------------------------------------------------
spool_run probe -e 'var:int:nosuch@compute' -- ./pv0 1 1
num_cmp "$RC" -ne 0 "a variable that does not exist: non-zero exit"
like "$ERR" "no variable 'nosuch' in compute" "... and the error names it"
spool_run probe -e 'assert:x < @check' -- ./pv0 1 1
num_cmp "$RC" -ne 0 "an assertion that does not parse is refused"

done_testing
