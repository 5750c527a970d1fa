#!/bin/bash
# SPDX-License-Identifier: MIT
# 192-probe-jumps.t - counting probes before jumps, at labels and at block
# exits (spool probe -e jump:GLOB -e label:FUNC:NAME -e block-exit:GLOB;
# spool report --coverage).
#
# tests/progs/probe_jumps.c counts, itself, every goto, break, continue and
# return of work() (a jump statement on its own line, marked J:NAME) and
# every pass at its labels (L:NAME), and prints them. jump:work counts
# the passes at every unconditional jump and ret of work: the points of
# each marked line must add up to the program's own count; label:work:*
# counts each label (DW_TAG_label), by its name. step() calls a function
# that longjmps out of it every fourth call: block:step counts the calls,
# block-exit:step the passes at the block's last instruction (its ret),
# which the longjmps skip: the program's "stepdone" count, at -O0 and -O2.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 12

cp "$REPO/tests/progs/probe_jumps.c" pj.c
ok "the test program builds at -O0 -g and -O2 -g" \
	sh -c 'gcc -O0 -g -o pj0 "$PWD/pj.c" && gcc -O2 -g -o pj2 "$PWD/pj.c"'
N=12
native="$(./pj0 $N)"

spool_run probe --list -e 'jump:work' -e 'label:work:*' -e 'block-exit:step' ./pj0
like "$OUT" "^work +jump +(jump|int3) +\\+0x[0-9a-f]+ +jmp " "--list: a jump point before a jmp"
like "$OUT" "(^|$(printf '\n'))work +jump +(jump|int3) +\\+0x[0-9a-f]+ +ret " "--list: ... and before the ret"
like "$OUT" "work +label +(jump|int3|shared) " "--list: label points"
like "$OUT" "step +block-exit +(jump|int3) " "--list: a block-exit point"

spool_run probe -q -e 'jump:work' -e 'label:work:*' -e 'block-exit:step' -e 'block:step' \
	-- ./pj0 $N
is "$RC:$OUT" "0:$native" "the probed program prints what it prints alone"
printf '%s\n' "$OUT" > out.txt
spool_run report --coverage --json spool.trace
cp run.out cov.json

# check.py: for every J:/L: marker, spool's count against the program's
check='
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
'
is "$(python3 -c "$check" cov.json pj.c out.txt)" "ok 8" \
	"-O0: every goto, break, continue, ret and label passed as often as the program counted"
spool_run report --coverage spool.trace
like "$OUT" "label +again +work +pj.c:[0-9]+ +$(grep '^again ' out.txt | cut -d' ' -f2)" \
	"the text report names the label and its passes"

# block-exit: the calls the longjmp left out of step's block
bx='
import json, sys
cov = json.load(open(sys.argv[1]))
ex = [p["count"] for p in cov["points"] if p["kind"] == "block-exit" and p["function"] == "step"]
bl = [b["count"] for b in cov["blocks"] if b["function"] == "step"]
print(max(ex) if ex else -1, max(bl) if bl else -1)
'
want="$(grep '^stepdone ' out.txt | cut -d' ' -f2) $(grep '^step ' out.txt | cut -d' ' -f2)"
is "$(python3 -c "$bx" cov.json)" "$want" \
	"-O0: step's block is entered on every call and left only when maybe() returned"
spool_run probe -q -e 'block-exit:step' -e 'block:step' -- ./pj2 $N
printf '%s\n' "$OUT" > out2.txt
spool_run report --coverage --json spool.trace
want="$(grep '^stepdone ' out2.txt | cut -d' ' -f2) $(grep '^step ' out2.txt | cut -d' ' -f2)"
is "$(python3 -c "$bx" run.out)" "$want" "-O2: the same"

spool_run probe -e 'label:work:nosuch' -- ./pj0 1
num_cmp "$RC" -ne 0 "a label that does not exist is refused"
like "$ERR" "no function of .* matching 'work' has a label 'nosuch'" "... and spool says so"

done_testing
