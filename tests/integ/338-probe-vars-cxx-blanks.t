#!/bin/bash
# SPDX-License-Identifier: MIT
# 338-probe-vars-cxx-blanks.t - C++ names with blanks in var:, assert: and
# time: probes (issue 17): "(anonymous namespace)::count",
# "Pair<int, char>::hits", "Box<int, char>::put(int)". The "vars" side file
# (version 2) writes every name as one word (\040 for a space,
# src/trace/sideword.c): version 1 wrote them as they are, so the report
# read "Pair<int," as the name and dropped the variable without a word.
# spool report still reads a version 1 file. The values are the program's
# (tests/progs/cxx/probe_blanks.cpp): after work(N) call k, count is k*N,
# hits is k.
. "$(dirname "$0")/lib.sh"
plan 14
if ! command -v g++ >/dev/null; then
	skip 14 "no g++"
	done_testing
	exit 0
fi
g++ -g -O0 -fno-omit-frame-pointer -o probe_blanks "$REPO/tests/progs/cxx/probe_blanks.cpp" 2>cc.err
ok "the C++ program builds" test -x probe_blanks || diag "$(cat cc.err)"
native="$(./probe_blanks 4)"

spool_run probe -q -o b.trace -e 'var:int:(anonymous namespace)::count@work:exit' \
	-e 'var:int:Pair<int, char>::hits@work:exit' -e 'assert:n >  3@work' \
	-e $'assert:n\n< 4@work' -e 'time:Box<int, char>::put(int)' \
	-e 'var:int:v@Box<int, char>::put' -- ./probe_blanks 4
is "$RC:$OUT" "0:$native" "probes on names with blanks are taken, the program runs as unprobed"
spool_run report --vars --limit 0 b.trace
like "$OUT" "variable \\(anonymous namespace\\)::count \\(int\\) at work\\(int\\):exit: 3 values, min 4, max 12" \
	"(anonymous namespace)::count, as nm -C names it: 3 values, 4 to 12"
like "$OUT" "variable Pair<int, char>::hits \\(int\\) at work\\(int\\):exit: 3 values, min 1, max 3" \
	"Pair<int, char>::hits (a static member of a template): 3 values, 1 to 3"
like "$OUT" "assertion n >  3 at work\\(int\\):entry: 3 true, 0 false" \
	"an assertion's text comes back as written (two spaces)"
like "$OUT" "assertion n\\\\x0a< 4 at work\\(int\\):entry: 0 true, 3 false" \
	"  one with a newline: its own line, not cut at the newline"
like "$OUT" "time:Box<int, char>::put\\(int\\) +12 " "time:Box<int, char>::put(int): the 12 calls"
got="$(python3 -c 'import json,sys; print(sorted(v["name"] for v in json.load(open(sys.argv[1]))["vars"]))' \
	<("$SPOOL" report --vars --json b.trace 2>/dev/null))"
is "$got" "['(anonymous namespace)::count', 'Pair<int, char>::hits', 'v']" \
	"  the JSON report names the variables as the program does"

# The side file: one word per column, every var line 9 columns.
vf=b.trace/.spool/vars
is "$(head -n 1 $vf)" "# spool vars 2" "the vars side file is version 2"
is "$(awk '$1 == "var" && NF != 9' $vf | wc -l)" 0 "  every var line has its 9 columns"
is "$(awk '($1 == "assert" && NF != 6) || ($1 == "time" && NF != 6)' $vf | wc -l)" 0 \
	"  every assert and time line its 6"

# A version 1 file (spool before version 2: names and texts as they are)
# is still read: the same trace with its vars file rewritten so.
cp -r b.trace old.trace
python3 - "$vf" old.trace/.spool/vars <<'PY'
import re, sys
out = ["# spool vars 1\n"]
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    w = line.split()
    un = lambda s: re.sub(r"\\([0-3][0-7][0-7])", lambda m: chr(int(m.group(1), 8)), s)
    if w[0] == "var":
        out.append(" ".join(w[:3] + [un(x) for x in w[3:6]] + [w[6], un(w[7])]) + "\n")
    elif "\n" not in un(w[-1]):
        out.append(" ".join(w[:-1] + [un(w[-1])]) + "\n")
open(sys.argv[2], "w").write("".join(out))
PY
spool_run report --vars --limit 0 old.trace
like "$OUT" "variable v \\(int\\) at Box<int, char>::put\\(int\\):entry: 12 values, min 0, max 3" \
	"version 1 is read: a variable (v in Box<int, char>::put, by its symbol)"
like "$OUT" "assertion n >  3 at work\\(int\\):entry: 3 true, 0 false" "version 1: the assertion to the end of its line"
like "$OUT" "time:Box<int, char>::put\\(int\\) +12 " "version 1: the time spec to the end of its line"

done_testing
