#!/bin/bash
# SPDX-License-Identifier: MIT
# 189-probe-oneline.t - arguments of functions written on one line, read at
# their first instruction (spool probe -e args:, -e assert:).
#
# At -O0 a one-line function (`float f_f(float x) { return x / 3; }`) has no
# line-table row after its prologue that names another line, so its entry
# point is its first instruction, before the prologue stores the parameters
# into their frame slots (where DWARF says they are). spool must read them
# where the caller put them: the SysV ABI register (rdi..r9, xmm0-7) or the
# stack above the return address. tests/progs/probe_oneline.c has one such
# function per C scalar type (and mixes, more than six integer and eight
# float arguments) and prints every call's arguments and result with the
# report's precision: the report's values must equal those lines, built
# with gcc -O0 and with clang -O0 (whose frame base is rbp and which emits
# no .debug_aranges). An assertion on such a parameter counts true/false
# and names its first false hit with the right value. Assertions on
# constants only (`assert:1 == 1@f_f`, `assert:0@main:LINE`) count every
# hit too (they read no variable: the probe reads a hidden constant).
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 13

cp "$REPO/tests/progs/probe_oneline.c" po.c
ok "the test program builds at gcc -O0 -g" gcc -O0 -g -o po0 "$PWD/po.c"

# compare.py JSON OUTPUT: for each function the program printed, its
# parameters' values (in DWARF order, by name order of the JSON) and return
# value joined as the program prints them; prints what differs.
cat > compare.py <<'PY'
import json, sys, collections
vs = json.load(open(sys.argv[1]))["vars"]
out = open(sys.argv[2]).read().splitlines()
cols = collections.OrderedDict()
for v in vs:
    key = (v["function"], v["name"])
    cols.setdefault(v["function"], collections.OrderedDict())[v["name"]] = \
        [p["value"] for p in sorted(v["values"], key=lambda p: p["ns"])]
bad = []
funcs = sorted({l.split(" ")[0] for l in out if l.startswith("f_")})
for f in funcs:
    want = [l for l in out if l.startswith(f + " ")]
    c = cols.get(f)
    if not c or "return" not in c:
        bad.append("%s: no values" % f)
        continue
    names = [n for n in c if n != "return"]
    got = []
    for k in range(len(c["return"])):
        vals = [c[n][k] if k < len(c[n]) else "MISSING" for n in names]
        got.append("%s %s -> %s" % (f, " ".join(vals), c["return"][k]))
    if got != want:
        bad.append("%s: got %s want %s" % (f, got, want))
print("%d functions: " % len(funcs) + ("\n".join(bad) if bad else "same"))
PY
N=3

spool_run probe -q -e 'args:f_*' -- ./po0 $N
is_rc 0 "gcc -O0: args:f_* runs the program"
printf '%s\n' "$OUT" > out0.txt
spool_run report --vars --json spool.trace
cp run.out a0.json
is "$(python3 compare.py a0.json out0.txt)" "20 functions: same" \
	"gcc -O0: every scalar type's argument and return value as the program printed them"

spool_run probe --list -e 'args:f_f' -e 'args:f_many' -e 'args:f_fl' ./po0
like "$OUT" "x \\(float\\) at f_f:entry from xmm0" "--list: a float one-liner's parameter is read from xmm0"
like "$OUT" "h \\(long\\) at f_many:entry from \\[rsp\\+16\\]" \
	"--list: the 8th integer argument from the stack above the return address"
like "$OUT" "i \\(double\\) at f_fl:entry from \\[rsp\\+8\\]" \
	"--list: a double after eight floats from the stack"

# An assertion on a one-liner's parameter: counts and its first false hit.
spool_run probe -q -e 'assert:x > 1.55@f_f' -e 'assert:x < 0@f_i' -- ./po0 $N
is_rc 0 "assert: on one-line functions runs"
want_f="$(grep -c '^f_f ' <<<"$OUT")"
first="$(grep -m1 '^f_f ' <<<"$OUT" | cut -d' ' -f2)"
spool_run report --vars --json spool.trace
is "$(python3 -c '
import json, sys
a = {x["function"]: x for x in json.load(open(sys.argv[1]))["asserts"]}
f, i = a["f_f"], a["f_i"]
print(f["true"] + f["false"], f["false"], f["first_failure"]["values"], i["true"], i["false"])
' run.out)" "$want_f 1 x=$first $want_f 0" \
	"an assertion on f_f's x and f_i's x: counts and the first false hit's value as printed"

# Assertions without variables count every time their point runs.
line="$(grep -n 'printf("f_c ' po.c | cut -d: -f1)"
spool_run probe -q -e 'assert:1 == 1@f_f' -e "assert:0@main:$line" -e 'assert:2 > 1 && x@f_i' \
	-- ./po0 $N
is_rc 0 "assertions on constants run"
spool_run report --vars --json spool.trace
is "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s:%d/%d" % (a["expr"], a["true"], a["false"]) for a in r["asserts"]),
      len(r["vars"]))
' run.out)" "1 == 1:$N/0 0:0/$N 2 > 1 && x:$N/0 0" \
	"constant assertions count each of the N hits (true, false), and no hidden variable is shown"

if command -v clang >/dev/null; then
	ok "the test program builds at clang -O0 -g" clang -O0 -g -o pc0 "$PWD/po.c"
	spool_run probe -q -e 'args:f_*' -- ./pc0 $N
	is_rc 0 "clang -O0: args:f_* runs the program"
	printf '%s\n' "$OUT" > outc.txt
	spool_run report --vars --json spool.trace
	cp run.out ac.json
	is "$(python3 compare.py ac.json outc.txt)" "20 functions: same" \
		"clang -O0: every scalar type's argument and return value as printed"
else
	skip 3 "clang is not installed"
fi

done_testing
