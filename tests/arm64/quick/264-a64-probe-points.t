#!/bin/bash
# SPDX-License-Identifier: MIT
# 264-a64-probe-points.t - counting points on aarch64 (jump:, label:,
# block-exit:; src/arch/aarch64/a64_cfg.c a64_point), spool's aarch64
# build under qemu-user, the host's spool reading the traces, as
# tests/integ/192-probe-jumps.t does on x86-64: tests/progs/probe_jumps.c
# (cross-built at -O0 -g and -O2 -g) counts, itself, every goto, break,
# continue and return of work() and every pass at its labels; the points
# of each marked line must add up to the program's own count. step() calls
# a function that longjmps out of it every fourth call: block-exit:step
# counts the passes at its RET ("stepdone"), block:step the calls. A jump
# point on a RET a func: exit probe has too is counted in that probe's
# trampoline, with func: still counting every call and exit.
SRC="$(cd "$(dirname "$0")/../../.." && pwd)"
. "$(dirname "$0")/../lib.sh"

plan 8

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if ! command -v "$A64CC" >/dev/null || ! command -v python3 >/dev/null; then
	skip 8 "no $A64CC or python3 on the host"
	done_testing
	exit 0
fi
cp "$SRC/tests/progs/probe_jumps.c" pj.c
"$A64CC" --sysroot="$QEMU_LD_PREFIX" -O0 -g -o pj0 pj.c &&
	"$A64CC" --sysroot="$QEMU_LD_PREFIX" -O2 -g -o pj2 pj.c
is "$?" 0 "probe_jumps cross-builds at -O0 -g and -O2 -g"
N=12
native="$(./pj0 $N)"
printf '%s\n' "$native" >out.txt

# check.py COV SRC OUT: every J:/L: marker's count against the program's
cat >check.py <<'PY'
import json, re, sys
cov = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().splitlines()
prog = dict(l.split() for l in open(sys.argv[3]).read().splitlines())
pts = cov["points"]
bad, n = [], 0
for no, text in enumerate(src, 1):
    for kind, name in re.findall(r"/\* ([JL]):(\w+) \*/", text):
        if kind == "J":
            got = sum(p["count"] for p in pts if p["kind"] == "jump" and p["line"] == no)
        else:
            got = sum(p["count"] for p in pts if p["kind"] == "label" and p["name"] == name)
        n += 1
        if got != int(prog[name]):
            bad.append("%s:%s line %d: spool %d, program %s" % (kind, name, no, got, prog[name]))
print("; ".join(bad) if bad else "ok %d" % n)
PY
# bx.py COV: step's block-exit and block counts
cat >bx.py <<'PY'
import json, sys
cov = json.load(open(sys.argv[1]))
ex = [p["count"] for p in cov["points"] if p["kind"] == "block-exit" and p["function"] == "step"]
bl = [b["count"] for b in cov["blocks"] if b["function"] == "step"]
print(max(ex) if ex else -1, max(bl) if bl else -1)
PY

spool_run probe -e 'jump:work' -e 'label:work:*' -e 'block-exit:step' -e 'block:step' \
	-o pj.trace -- ./pj0 $N
is "$RC:$OUT" "0:$native" "jump:, label:, block-exit: on aarch64: the output unchanged"
host_run report --coverage --json pj.trace
is "$(python3 check.py run.out pj.c out.txt)" "ok 8" \
	"  -O0: every goto, break, continue, ret and label passed as often as the program counted"
want="$(grep '^stepdone ' out.txt | cut -d' ' -f2) $(grep '^step ' out.txt | cut -d' ' -f2)"
is "$(python3 bx.py run.out)" "$want" \
	"  -O0: step's block entered on every call, its RET passed only when maybe() returned"
native2="$(./pj2 $N)"
spool_run probe -q -e 'block-exit:step' -e 'block:step' -o pj2.trace -- ./pj2 $N
host_run report --coverage --json pj2.trace
want="$(printf '%s\n' "$native2" | grep '^stepdone ' | cut -d' ' -f2) $(printf '%s\n' "$native2" | grep '^step ' | cut -d' ' -f2)"
is "$(python3 bx.py run.out)" "$want" "  -O2: the same"

# --- a jump point on the RET a func: exit probe has ----------------------------
spool_run probe -q -e 'func:work' -e 'jump:work' -e 'label:work:*' -o pf.trace -- ./pj0 $N
host_run report --coverage --json pf.trace
is "$(python3 check.py run.out pj.c out.txt)" "ok 8" \
	"func: and jump: on one RET: the points counted as alone"
host_run report --functions --json pf.trace
like "$(python3 -c 'import json,sys; print([(f["name"], f["no_exit"]) for f in json.load(open(sys.argv[1]))["functions"]])' run.out)" \
	"^\\[\\('work', 0\\)\\]$" "  and work's every exit is seen"
spool_run probe --list -e 'func:work' -e 'jump:work' ./pj0
like "$OUT" "work +jump +shared +\\+0x[0-9a-f]+ +ret .*runs in probe [0-9]+'s trampoline" \
	"  --list: the point on the RET runs in the exit probe's trampoline"

done_testing
