#!/bin/bash
# SPDX-License-Identifier: MIT
# 262-a64-probe-vars.t - variable, argument, assertion and time probes on
# aarch64 (var:, args:, assert:, time:; src/arch/arch_dwarf.h, a64_plan.c,
# a64_agent_probe_hot.c), spool's aarch64 build under qemu-user, the host's
# x86-64 spool reading the traces. The programs print what they compute;
# the values the probes read must be those:
#   - tests/progs/probe_args.c cross-built at -O0 -g (parameters in frame
#     slots through the CFA), -O2 -g (in x0-x7 / v0-v7 by their DWARF
#     locations) and stripped (args:GLOB:TYPES: AAPCS64 registers at the
#     first instruction); return values from x0 / v0 where the epilogue
#     starts;
#   - tests/progs/probe_vars.c: char, int, long, float, double locals at
#     compute's exit (-O0: the frame before the epilogue pops it); at -O2
#     k and scale at the entry from x0 and v0; assertions and time probes;
#     a long double (IEEE binary128 here) at compute's exit as printed
#     (every place a long double is read: 266);
#   - probe_a64 from 3 threads: func: and args: of one function on the same
#     words (the variable read in the func: probe's trampoline), exact
#     counts; a libc function's arguments by TYPES.
SRC="$(cd "$(dirname "$0")/../../.." && pwd)"
. "$(dirname "$0")/../lib.sh"

plan 18

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if ! command -v "$A64CC" >/dev/null || ! command -v python3 >/dev/null; then
	skip 18 "no $A64CC or python3 on the host"
	done_testing
	exit 0
fi
cp "$SRC/tests/progs/probe_args.c" "$SRC/tests/progs/probe_vars.c" .
CC=("$A64CC" "--sysroot=$QEMU_LD_PREFIX")
ok "the test programs cross-build at -O0 -g, -O2 -g and stripped" \
	sh -c "${CC[*]} -O0 -g -o pa0 probe_args.c && ${CC[*]} -O2 -g -o pa2 probe_args.c &&
		${CC[*]} -O0 -g -rdynamic -o pas probe_args.c && ${A64CC%gcc}strip pas &&
		${CC[*]} -O0 -g -o pv0 probe_vars.c && ${CC[*]} -O2 -g -o pv2 probe_vars.c"

# compare.py JSON OUTPUT NAMES...: as tests/integ/89-probe-args.t: each
# function's values (NAME=P1,P2,...[,return]) joined as the program prints.
cat >compare.py <<'PY'
import json, sys
vs = json.load(open(sys.argv[1]))["vars"]
out = open(sys.argv[2]).read().splitlines()
bad = []
for spec in sys.argv[3:]:
    func, names = spec.split("=")
    names = names.split(",")
    cols = []
    for n in names:
        pts = sorted((p["ns"], p["value"]) for v in vs
                     if v["function"] == func and v["name"] == n for p in v["values"])
        cols.append([p[1] for p in pts])
    got = []
    for k in range(max(len(c) for c in cols)):
        vals = [c[k] if k < len(c) else "MISSING" for c in cols]
        if names[-1] == "return":
            got.append("%s %s -> %s" % (func, " ".join(vals[:-1]), vals[-1]))
        else:
            got.append("%s %s" % (func, " ".join(vals)))
    want = [l for l in out if l.startswith(func + " ")]
    if names[-1] != "return":
        want = [l.split(" -> ")[0] for l in want]
    if got != want or not want:
        bad.append("%s: got %s want %s" % (func, got, want))
print("\n".join(bad) if bad else "same")
PY
N=4
ALL="mix=i,l,c,return scale=d,f,k,return halve=f,return pick=base,off,return note=v"

# --- args: -O0, -O2, stripped -------------------------------------------------
spool_run probe -e 'args:*' -o a0.trace -- ./pa0 $N
is_rc 0 "args:* with DWARF at -O0 on aarch64"
printf '%s\n' "$OUT" >out0.txt
unlike "$ERR" "widen.*skipped" "  widen's long double (binary128) return value is read, not skipped"
host_run report --vars --json a0.trace
is "$(python3 compare.py run.out out0.txt $ALL sum_pair=extra,return)" "same" \
	"  every scalar parameter (frame slots) and return value as the program printed them"
spool_run probe -q -e 'args:mix' -e 'args:scale' -e 'args:halve' -e 'args:pick' \
	-o a2.trace -- ./pa2 $N
printf '%s\n' "$OUT" >out2.txt
host_run report --vars --json a2.trace
is "$(python3 compare.py run.out out2.txt mix=i,l,c,return scale=d,f,k,return halve=f,return \
	pick=base,off,return)" "same" "-O2: parameters by their DWARF locations, as printed"
spool_run probe -q -e 'args:mix:int,long,char->long' -e 'args:scale:double,float,int->double' \
	-e 'args:halve:float->float' -e 'args:pick:char*,int->char*' -e 'args:note:int->void' \
	-o as.trace -- ./pas $N
printf '%s\n' "$OUT" >outs.txt
host_run report --vars --json as.trace
is "$(python3 compare.py run.out outs.txt mix=arg1,arg2,arg3,return \
	scale=arg1,arg2,arg3,return halve=arg1,return pick=arg1,arg2,return note=arg1)" "same" \
	"stripped, TYPES given: integers, pointers, float and double by AAPCS64"
spool_run probe --list -e 'args:scale:double,float,int->double' -e 'args:pick' ./pa0
like "$OUT" "arg3 \\(int\\) at scale:entry from x0" "  --list: the third argument, the first integer one, from x0"
like "$OUT" "return \\(double\\) at scale:exit from v0" "  --list: a double result from v0"
like "$OUT" "off \\(int\\) at pick:entry from \\[sp\\+[0-9]+\\]" "  --list: an -O0 parameter from its frame slot"

# --- var: at an exit and at the entry, assertions, time ------------------------
M=6
native="$(./pv0 $M 5)"
spool_run probe -e 'var:char:c@compute:exit' -e 'var:int:i@compute:exit' \
	-e 'var:long:l@compute:exit' -e 'var:float:f@compute:exit' \
	-e 'var:double:d@compute:exit' -o v0.trace -- ./pv0 $M 5
is "$RC:$OUT" "0:$native" "var: at compute's exit: the output unchanged"
host_run report --vars --json v0.trace
got="$(python3 - run.out <<'PY'
import json, sys
v = {x["name"]: x for x in json.load(open(sys.argv[1]))["vars"]}
for k in range(len(v["c"]["values"])):
    g = lambda name: v[name]["values"][k]["value"]
    print("c=%s i=%s l=%s f=%s d=%s" % (g("c"), g("i"), g("l"), g("f"), g("d")))
PY
)"
is "$got" "$(printf '%s\n' "$native" | grep '^c=' | sed 's/ ld=.*//')" \
	"  char, int, long, float, double read as the program printed them"
spool_run probe -q -e 'var:double:scale@compute' -e 'var:int:k@compute' -o v2.trace -- ./pv2 $M 5
like "$(cat v2.trace/.spool/vars)" 'double scale compute entry 1 v0' "-O2: scale is read from v0"
host_run report --vars --json v2.trace
is "$(python3 -c 'import json,sys; v={x["name"]:x for x in json.load(open(sys.argv[1]))["vars"]}; print(" ".join(p["value"] for p in v["k"]["values"]), "/", " ".join(sorted(set(p["value"] for p in v["scale"]["values"]))))' run.out)" \
	"$(seq -s ' ' 0 $((M - 1))) / 1.5" "  k (x0) and scale (v0) read as passed"
spool_run probe -q -e 'var:longdouble:ld@compute:exit' -o ld.trace -- ./pv0 $M 5
host_run report --vars --json ld.trace
is "$(python3 -c '
import json, sys
from decimal import Decimal
for v in json.load(open(sys.argv[1]))["vars"]:
    for p in v["values"]:
        print("ld=" + format(Decimal(p["value"]), ".21g"))' run.out)" \
	"$(printf '%s\n' "$native" | grep -o 'ld=.*')" \
	"a long double (binary128) local read at compute's exit, as printed (%.21Lg)"
spool_run probe -q -e 'assert:x < limit@check' -e 'time:nap' -e 'time:compute..check' \
	-o t.trace -- ./pv0 $M 20
host_run report --vars --json t.trace
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d["asserts"][0]; t=d["times"]; print(a["true"], a["false"], a["first_failure"]["values"], t[0]["count"], int(t[0]["min_ns"] >= 20e6), t[1]["count"])' run.out)" \
	"$M $M x=$M limit=$M 3 1 1" \
	"assert: holds $M times, fails $M times, first at x=$M; time:nap 3 calls of >= 20 ms; one span"

# --- func: and args: on one word, from 3 threads; a libc function by TYPES ------
P="$PROGS/probe_a64"
K=100
pnative="$("$P" $K 2>&1)"
spool_run probe -e 'func:c_adrp' -e 'args:c_adrp' -e 'func:libc.so.6:strtoul' \
	-e 'args:libc.so.6:strtoul:char*,char**,int->unsigned long' -o s.trace -- "$P" $K
is "$RC:$OUT" "0:$pnative" "func: and args: of one function (and of libc's strtoul): output unchanged"
host_run report --vars --json s.trace
cp run.out s.json
is "$(python3 - s.json $K <<'PY'
import json, sys
k = int(sys.argv[2])
v = {(x["function"], x["name"]): [p["value"] for p in x["values"]]
     for x in json.load(open(sys.argv[1]))["vars"]}
xs = sorted(int(a) for a in v[("c_adrp", "x")])
rs = sorted(int(a) for a in v[("c_adrp", "return")])
print(xs == sorted(list(range(k)) * 3), rs == [x + 5 for x in xs],
      v[("strtoul", "arg3")] == ["10"] * (3 * k))
PY
)" "True True True" "  c_adrp's x 0..$((K - 1)) in each of 3 threads, its result x + 5; strtoul's base 10 each of $((3 * K)) calls"
host_run report --functions --json s.trace
is "$(python3 -c '
import json, sys
print(sorted((f["name"], f["calls"], f["no_exit"]) for f in json.load(open(sys.argv[1]))["functions"]))' run.out)" \
	"[('c_adrp', $((3 * K)), 0), ('strtoul', $((3 * K)), 0)]" \
	"  and func: still counts every call and exit"

done_testing
