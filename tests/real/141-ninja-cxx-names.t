#!/bin/bash
# SPDX-License-Identifier: MIT
# 141-ninja-cxx-names.t - C++ names with blanks on Debian's ninja (C++,
# stripped: libstdc++'s .dynsym names, demangled): args: by the ABI on
# "operator new(unsigned long)" and "operator delete(void*, unsigned long)"
# and time: spans between them, written as a user writes them. The "vars"
# side file (version 2) keeps each name and spec as one word (\040 for a
# blank, src/trace/sideword.c) and the reports give them back as typed. The
# values are the program's own: every (pointer, size) sized delete frees is
# one operator new returned for that size.
. "$(dirname "$0")/lib.sh"
need_progs ninja tr
plan 9

mkdir w
cat >w/build.ninja <<'EOF2'
rule up
  command = tr a-z A-Z < $in > $out
build a.up: up a.txt
build b.up: up b.txt
EOF2
seq 1 500 >w/a.txt
seq 501 1000 >w/b.txt
NEW='libstdc++*:operator new(unsigned long)'
DEL='libstdc++*:operator delete(void*, unsigned long)'
cd w
spool_run probe -q -o "$T_DIR/n.trace" -e "args:$NEW:ulong->ptr" \
	-e "args:$DEL:ptr,unsigned long->void" -e "time:$NEW" -e "time:$NEW..$DEL" -- ninja -j1
cd "$T_DIR"
ok "ninja under args:/time: probes on libstdc++'s operator new and sized delete: built" \
	test "$RC" = 0 -a -s w/a.up -a -s w/b.up || show_run
is "$(cat w/a.up w/b.up | wc -l)" 1000 "  its output is whole"

"$SPOOL" report --vars --json n.trace >v.json 2>v.err
cat >check.py <<'PY'
import json, sys
d = json.load(open("v.json"))
vs = {}
for v in d["vars"]:
    vs.setdefault((v["function"], v["name"]), v)
times = {t["spec"]: t for t in d["times"]}
what = sys.argv[1]
new_sz = vs.get(("operator new(unsigned long)", "arg1"))
new_ret = vs.get(("operator new(unsigned long)", "return"))
del_p = vs.get(("operator delete(void*, unsigned long)", "arg1"))
del_sz = vs.get(("operator delete(void*, unsigned long)", "arg2"))
if what == "names":
    print(all((new_sz, new_ret, del_p, del_sz)))
elif what == "calls":
    t = times.get("time:" + sys.argv[2], {})
    print(new_sz["count"] == new_ret["count"] == t.get("count") and t["count"] > 0)
elif what == "span":
    print(times.get("time:" + sys.argv[2], {}).get("count", 0) > 0)
elif what == "pairs":
    made = {(r["value"], s["value"]) for r, s in zip(new_ret["values"], new_sz["values"])}
    freed = [(p["value"], s["value"]) for p, s in zip(del_p["values"], del_sz["values"])]
    bad = [f for f in freed if f not in made]
    print(len(freed) > 0 and not bad, len(freed), bad[:3])
PY
is "$(python3 check.py names)" True \
	"report --vars --json: the arguments under operator new(unsigned long) and operator delete(void*, unsigned long)"
is "$(python3 check.py calls "$NEW")" True "  time:$NEW: as many calls as operator new's sizes and results"
is "$(python3 check.py span "$NEW..$DEL")" True "  the time: span's spec comes back as typed, with its blanks"
got="$(python3 check.py pairs)"
like "$got" "^True [0-9]+ \\[\\]$" "  every (pointer, size) sized delete freed is one operator new returned for that size" ||
	diag "$got"
vf=n.trace/.spool/vars
is "$(head -n 1 $vf)" "# spool vars 2" "the vars side file is version 2"
is "$(awk '($1 == "var" && NF != 9) || ($1 == "time" && NF != 6)' $vf | wc -l)" 0 \
	"  every line has its columns, the names and specs with blanks one word each"
spool_run report --vars --limit 1 n.trace
like "$OUT" "variable arg2 \\(ulong\\) at operator delete\\(void\\*, unsigned long\\):entry: [0-9]+ values" \
	"the text report names operator delete(void*, unsigned long)"

done_testing
