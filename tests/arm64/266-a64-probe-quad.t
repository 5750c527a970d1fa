#!/bin/bash
# SPDX-License-Identifier: MIT
# 266-a64-probe-quad.t - long double values on aarch64 (IEEE binary128:
# PROBE_T_F128 "float128", src/util/f128.c), spool's aarch64 build under
# qemu-user, the host's x86-64 spool reading the traces. tests/progs/
# probe_quad.c prints every value with "%.36Lg" (glibc's exact rounding);
# the reports must print the very same text, on the board and on the host
# (whose own long double is x87's 80 bits: it would lose 49 bits):
#   - args: of a function taking a long double in v0 and returning one in
#     v0, and of one taking nine (the ninth on the stack, 16-aligned);
#   - var: of a local in its frame slot at the function's exit, and of a
#     global at main's exit; values 1e-30 apart near 1/3 and +-1e300;
#   - the same by TYPES on a stripped build (AAPCS64: v0-v7, then the stack);
#   - the min and max the text report gives are exact (the host's x87 long
#     double cannot tell 1/3 from 1/3 + 2e-30).
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 11

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if ! command -v "$A64CC" >/dev/null || ! command -v python3 >/dev/null; then
	skip 11 "no $A64CC or python3 on the host"
	done_testing
	exit 0
fi
CC=("$A64CC" "--sysroot=$QEMU_LD_PREFIX")
ok "probe_quad cross-builds at -O0 -g, -O2 -g and stripped" \
	sh -c "${CC[*]} -O0 -g -o q0 $SRC/tests/progs/probe_quad.c &&
		${CC[*]} -O2 -g -o q2 $SRC/tests/progs/probe_quad.c &&
		${CC[*]} -O2 -rdynamic -o qs $SRC/tests/progs/probe_quad.c && ${A64CC%gcc}strip qs"

# got.py JSON FUNC:NAME,NAME,...: the values of each hit, joined as the
# program prints them ("FUNC V1 V2 -> RET"), in time order
cat >got.py <<'PY'
import json, sys
vs = json.load(open(sys.argv[1]))["vars"]
func, names = sys.argv[2].split(":")
cols = []
for n in names.split(","):
    cols.append([p["value"] for p in sorted(
        (p for v in vs if v["function"] == func and v["name"] == n for p in v["values"]),
        key=lambda p: p["ns"])])
for row in zip(*cols):
    print("%s %s -> %s" % (func, " ".join(row[:-1]), row[-1]))
PY
N=6
for b in q0 q2; do
	native="$(./$b $N)"
	spool_run probe -e 'args:scaled' -e 'args:many' -e 'var:auto:q@scaled:exit' \
		-e 'var:auto:g_quad@main:exit' -o $b.trace -- ./$b $N
	is "$RC:$OUT" "0:$native" "$b: args: and var: of long doubles: the output unchanged"
	host_run report --vars --json $b.trace
	cp run.out $b.json
	got="$(python3 got.py $b.json scaled:x,k,return; python3 got.py $b.json many:s1,s9,return)"
	want="$(grep -E '^(scaled|many) ' <<<"$native" | sort -s -k1,1)"
	is "$(sort -s -k1,1 <<<"$got")" "$want" \
		"  $b: every argument (v0, the stack) and result (v0) as the program printed it, exactly"
	is "$(python3 got.py $b.json scaled:x,q)" "$(grep '^scaled ' <<<"$native" |
		awk '{ print $1, $2, "->", $NF }')" "  $b: the local q (its frame slot) as printed"
done
is "$(python3 -c 'import json,sys; print([p["value"] for v in json.load(open(sys.argv[1]))["vars"] if v["name"] == "g_quad" for p in v["values"]][0])' q0.json)" \
	"$(./q0 $N | awk '/^total/ { print $3 }')" "the global g_quad at main's exit as printed"

# --- stripped: TYPES by AAPCS64 -------------------------------------------------
native="$(./qs $N)"
spool_run probe -q -e 'args:many:long double,long double,long double,long double,long double,long double,long double,long double,long double->long double' \
	-o qs.trace -- ./qs $N
host_run report --vars --json qs.trace
is "$(python3 got.py run.out many:arg1,arg9,return)" "$(grep '^many ' <<<"$native")" \
	"stripped, TYPES: arg1 (v0), arg9 (the stack) and the result (v0) as printed"

# --- the text report: the same on the board and on the host, exact min/max ----
host_run report --vars q0.trace
host_txt="$OUT"
spool_run report --vars q0.trace
is "$OUT" "$host_txt" "the board's and the host's spool print the same report"
xs="$(grep '^scaled ' <<<"$(./q0 $N)" | awk '{ print $2 }')"
max="$(python3 -c '
import sys
from decimal import Decimal
print(max(sys.argv[1:], key=Decimal))' $xs)"
like "$host_txt" "variable x \\(float128\\) at scaled:entry: $N values, min [^,]*, max $max" \
	"  x's max is the largest printed ($max)"

done_testing
