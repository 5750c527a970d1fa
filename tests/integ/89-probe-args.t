#!/bin/bash
# SPDX-License-Identifier: MIT
# 89-probe-args.t - function argument and return value probes (spool probe
# -e args:GLOB, -e args:GLOB:TYPES; spool report --vars).
#
# The program (tests/progs/probe_args.c) prints, at each call of mix,
# scale, halve, pick, widen, sum_pair and note, the arguments it received
# and the value it returns, with the precision the report uses. The
# report's values of each function's parameters and "return", joined in the
# program's format, must equal those lines: with DWARF at -O0 and -O2, and
# on a stripped copy with the types given (read by the SysV ABI registers
# at the first instruction). widen's long double return value is read from
# x87 st(0): by an int3 on its ret at -O0 and by a jump at -O2 (--list says
# which, so both agent paths are checked). sum_pair's struct parameter is
# skipped, and said so.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 22

cp "$REPO/tests/progs/probe_args.c" probe_args.c
ok "the test program builds at -O0 -g, -O2 -g and stripped with .dynsym" \
	sh -c 'gcc -O0 -g -o pa0 "$PWD/probe_args.c" && gcc -O2 -g -o pa2 "$PWD/probe_args.c" &&
		gcc -O0 -g -rdynamic -o pas "$PWD/probe_args.c" && strip pas'

# compare.py JSON OUTPUT NAMES...: for each function (NAME=P1,P2,...[,return]),
# the report's values joined as the program prints them; prints what differs.
cat > compare.py <<'PY'
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
ALL="mix=i,l,c,return scale=d,f,k,return halve=f,return pick=base,off,return widen=x,n,return note=v"

# --- -O0, DWARF ------------------------------------------------------------------
spool_run probe -e 'args:*' -- ./pa0 $N
is_rc 0 "args:* with DWARF at -O0 runs the program"
printf '%s\n' "$OUT" > out0.txt
like "$ERR" "sum_pair: parameter p is a pair, not a scalar: skipped" "a struct parameter is skipped, named"
spool_run report --vars --json spool.trace
cp run.out a0.json
is "$(python3 compare.py a0.json out0.txt $ALL sum_pair=extra,return)" "same" \
	"-O0: every scalar parameter and return value as the program printed them"
spool_run probe --list -e 'args:widen' ./pa0
like "$OUT" "return \\(longdouble\\) at widen:exit from st0" "-O0: widen's long double return from st0"
like "$OUT" "widen +var +int3 +\\+0x[0-9a-f]+ +ret " "... by an int3 on its ret (the signal frame's st0)"
spool_run report --vars spool.trace
like "$OUT" "variable i \\(int\\) at mix:entry: $N values" "the text report: i (int) at mix:entry"
like "$OUT" "variable return \\(double\\) at scale:exit: $N values" "... and return (double) at scale:exit"
unlike "$OUT" "variable [a-z]+ \\([a-z]+\\) at note:exit" "a void function has no return value"

# --- -O2, DWARF locations in registers ------------------------------------------
spool_run probe -q -e 'args:mix' -e 'args:scale' -e 'args:halve' -e 'args:pick' -e 'args:widen' \
	-- ./pa2 $N
is_rc 0 "args: with DWARF at -O2"
printf '%s\n' "$OUT" > out2.txt
spool_run report --vars --json spool.trace
cp run.out a2.json
is "$(python3 compare.py a2.json out2.txt mix=i,l,c,return scale=d,f,k,return halve=f,return \
	pick=base,off,return widen=x,n,return)" \
	"same" "-O2: parameters (by their DWARF locations) and return values as printed"
spool_run probe --list -e 'args:widen' ./pa2
like "$OUT" "return \\(longdouble\\) at widen:exit from st0" "-O2: widen's long double return from st0"
like "$OUT" "widen +var +jump +\\+0x[0-9a-f]+ +ret " "... by a jump probe on its ret (the live st0)"

# --- stripped: the ABI from the types given --------------------------------------
spool_run probe -q -e 'args:mix:int,long,char->long' -e 'args:scale:double,float,int->double' \
	-e 'args:halve:float->float' -e 'args:pick:char*,int->char*' \
	-e 'args:widen:long double,int->long double' -e 'args:note:int->void' -- ./pas $N
is_rc 0 "args:GLOB:TYPES on a stripped program"
printf '%s\n' "$OUT" > outs.txt
spool_run report --vars --json spool.trace
cp run.out as.json
is "$(python3 compare.py as.json outs.txt mix=arg1,arg2,arg3,return scale=arg1,arg2,arg3,return \
	halve=arg1,return pick=arg1,arg2,return widen=arg1,arg2,return note=arg1)" "same" \
	"stripped: integer, double, float, pointer and long double (stack, st0) values by the ABI"

# TYPES overrides DWARF: the same values from the registers at the first instruction
spool_run probe -q -e 'args:mix:int,long,char->long' -- ./pa0 $N
printf '%s\n' "$OUT" > outt.txt
spool_run report --vars --json spool.trace
cp run.out at.json
is "$(python3 compare.py at.json outt.txt mix=arg1,arg2,arg3,return)" "same" \
	"TYPES given on a function with DWARF: read by the ABI"

# --list says what each probe reads
spool_run probe --list -e 'args:scale' -e 'args:pick:char*,int->char*' ./pa0
is_rc 0 "--list with args: probes"
like "$OUT" "k \\(int\\) at scale:entry from \\[rbp-[0-9]+\\]" "--list: a parameter and its DWARF location"
like "$OUT" "return \\(double\\) at scale:exit from xmm0" "--list: a double return value from xmm0"
like "$OUT" "arg1 \\(ptr\\) at pick:entry from rdi" "--list: a TYPES argument from its ABI register"

# --- bad specs ---------------------------------------------------------------------
spool_run probe -e 'args:mix:int,lnog->long' -- ./pas 1
num_cmp "$RC" -ne 0 "an unknown type in TYPES is refused"
like "$ERR" "unknown argument type 'lnog' in TYPES" "... and the error names it"

done_testing
