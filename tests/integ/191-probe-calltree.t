#!/bin/bash
# SPDX-License-Identifier: MIT
# 191-probe-calltree.t - the function report's call tree when exits are
# missing, and its averages (spool probe -e func:, --handler; spool report
# --functions).
#
# tests/progs/probe_leafcalls.c (built here at -O2) calls two leaves N
# times each from one loop, every call at the same stack pointer: twice()
# is `lea eax,[rdi+rdi]; ret` (one jump covers its body: its exit is
# "shared", counted in its entry's trampoline), square() has its own exit
# probe. What a user checks:
#  - twice alone (its exit the last probe id): every call is paired with
#    its exit, its caller is loop, never itself;
#  - a custom handler whose post handler faults at the third return
#    (tests/probe/handler_postfault.c) gets square's exit probe removed
#    while its entry stays: the later calls are N calls from loop, not a
#    recursion of square into itself (an entry at the stack pointer of an
#    open frame ends that frame: doc/probe.md);
#  - the same fault at twice's shared exit removes twice's probe (its
#    trampoline is the entry's): spool says so, the program runs on;
#  - --json gives a function whose exit is never seen (_start) an average
#    equal to its one call's time, as min and max, as the text does.
. "$(dirname "$0")/lib.sh"

CC="${CC:-cc}"
if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 13

ok "the test program builds at -O2" gcc -O2 -g -o lc "$REPO/tests/progs/probe_leafcalls.c"
ok "the post-faulting handler builds" \
	"$CC" -shared -fPIC -mgeneral-regs-only -O2 -I"$REPO/include" -o postfault.so \
	"$REPO/tests/probe/handler_postfault.c"
N=200
native="$(./lc $N)"

# funcs.py JSON FUNC: "calls no_exit callers" of FUNC (callers: name=count,...)
cat > funcs.py <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if f["name"] == sys.argv[2]:
        print(f["calls"], f["no_exit"],
              ",".join("%s=%d" % (c["name"], c["calls"]) for c in f["callers"]))
        break
else:
    print("absent")
PY

spool_run probe --list -e 'func:twice' ./lc
like "$OUT" "twice +exit +shared " "twice's exit is shared with its entry's jump"

spool_run probe -q -e 'func:twice' -- ./lc $N
is "$RC:$OUT" "0:$native" "twice alone: the program runs as without spool"
spool_run report --functions --json spool.trace
is "$(python3 funcs.py run.out twice)" "$N 0 loop=$N" \
	"twice alone: $N calls, each with its exit seen, all from loop"

# square's exit probe removed by a fault of the post handler
spool_run probe -q --handler ./postfault.so -e 'func:square' -- ./lc $N
is "$RC:$OUT" "0:$native" "a post handler that faults: the program runs on"
like "$ERR" "1 probes removed while the program ran" "... and spool removed the exit probe"
spool_run report --functions --json spool.trace
is "$(python3 funcs.py run.out square | cut -d' ' -f1,3)" "$N loop=$N" \
	"square after its exit probe was removed: $N calls from loop, no square <- square"
spool_run report --functions spool.trace
unlike "$OUT" "<- square" "... the text report has no recursion either"

# the same fault at twice's shared exit
spool_run probe -q --handler ./postfault.so -e 'func:twice' -e 'func:square' -- ./lc $N
is "$RC:$OUT" "0:$native" "a post handler that faults at a shared exit: the program runs on"
like "$ERR" "1 probes removed while the program ran" "... spool removed twice's probe"
spool_run report --functions --json spool.trace
is "$(python3 funcs.py run.out twice) / $(python3 funcs.py run.out square)" \
	"2 0 loop=2 / $N 0 loop=$N" \
	"... twice was counted until its probe went (2 calls, both exits seen), square throughout"

# _start never returns: its one call's time is its average too
spool_run probe -q -e 'func:_start' -e 'func:loop' -- ./lc $N
spool_run report --functions --json spool.trace
is "$(python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if f["name"] == "_start":
        print(f["calls"], f["no_exit"], f["min_ns"] == f["avg_ns"] == f["max_ns"] > 0)
' run.out)" "1 1 True" "--json: _start (no exit seen) has min = avg = max, not an average of 0"

done_testing
