#!/bin/bash
# SPDX-License-Identifier: MIT
# 190-probe-switch-gcov.t - block probes of switch statements compiled to
# jump tables, against gcov, at -O0 and -O2 (spool probe -e block:,
# spool report --coverage).
#
# tests/progs/probe_switchy.c has dense switches with cases reached both
# through the jump table and by falling through from the case before, a
# default reached from the bound check, and a nested switch. GCC 12 at -O0
# reads the table through a second copy of its address (`lea rdx,[rax*4];
# lea rax,[rip+T]; mov eax,[rdx+rax]; cdqe; lea rdx,[rip+T]; add rax,rdx;
# jmp rax`) and bounds the index on its stack slot (`cmp dword [rbp-4],N;
# ja`): spool must read that table, or every block of the function is an
# int3 at a known leader and a case reached both ways counts only its
# table entries. Built once plainly (probed) and once with --coverage
# (run natively, counted by gcov), the same input: at -O0 (PIE and
# -no-pie) every line both report has the same count; at -O2, where GCC
# moves code between lines by design (doc/probe.md), every line of a case
# (a call of hit()) does. The switch functions' blocks are jump probes.
. "$(dirname "$0")/lib.sh"

if ! command -v gcov >/dev/null || ! command -v gcc >/dev/null || ! command -v python3 >/dev/null
then
	echo "1..0 # SKIP gcc/gcov/python3 are not installed"
	exit 0
fi
plan 11

cp "$REPO/tests/progs/probe_switchy.c" probe_switchy.c
N=400

# compare.py COV.JSON GCOV.JSON.GZ MODE: MODE all: every line both report;
# calls: the lines that call hit(). Prints "ok N" or what differs.
cat > compare.py <<'PY'
import gzip, json, sys
ours = {l["line"]: l["count"] for l in json.load(open(sys.argv[1]))["lines"]}
src = open("probe_switchy.c").read().splitlines()
g = {}
for f in json.load(gzip.open(sys.argv[2]))["files"]:
    if f["file"].endswith("probe_switchy.c"):
        for l in f["lines"]:
            g[l["line_number"]] = l["count"]
common = sorted(set(ours) & set(g))
if sys.argv[3] == "calls":
    common = [n for n in common if "hit(" in src[n - 1] and "static" not in src[n - 1]]
bad = ["line %d: gcov %d, spool %d" % (n, g[n], ours[n]) for n in common if g[n] != ours[n]]
want = 30 if sys.argv[3] == "all" else 20
print("; ".join(bad) if bad else "ok" if len(common) >= want else "only %d lines" % len(common))
PY

# run_cmp OPTS MODE DESC
run_cmp() {
	local opts="$1" mode="$2" desc="$3" tag
	tag="$(tr -dc 'a-zA-Z0-9' <<<"$opts")"
	if ! gcc $opts -g -o "sw$tag" probe_switchy.c ||
		! gcc $opts -g --coverage -o "swg$tag" probe_switchy.c; then
		fail "$desc: builds"
		return
	fi
	"./swg$tag" $N >/dev/null
	gcov -j -o . "swg$tag-probe_switchy.gcda" >/dev/null 2>&1
	spool_run probe -q -e 'block:fall' -e 'block:nested' -e 'block:main' -- "./sw$tag" $N
	if [ "$RC" != 0 ] || [ "$OUT" != "$("./sw$tag" $N)" ]; then
		fail "$desc: the probed run (status $RC) prints what the program prints"
		return
	fi
	spool_run report --coverage --json spool.trace
	cp run.out "cov$tag.json"
	is "$(python3 compare.py "cov$tag.json" "swg$tag-probe_switchy.gcov.json.gz" "$mode")" ok \
		"$desc"
	cp "swg$tag-probe_switchy.gcov.json.gz" "g$tag.json.gz"
}

run_cmp "-O0" all "-O0 (PIE): line counts equal gcov's on every line both report"
spool_run probe --list -e 'block:fall' -e 'block:nested' ./swO0
like "$OUT" "^fall +block +jump " "-O0: the switch function's blocks are jump probes (its table read)"
unlike "$OUT" "(fall|nested) +block +int3 .*(unknown|jump table)" \
	"-O0: no block is an int3 for an unread jump table"
is "$(grep -c '^fall ' <<<"$OUT")" "$(grep -Ec '^fall +block +jump' <<<"$OUT")" \
	"-O0: every block of fall is a jump probe"

run_cmp "-O0 -no-pie" all "-O0 -no-pie: line counts equal gcov's on every line both report"
run_cmp "-O2" calls "-O2 (PIE): every case line's count equals gcov's"
run_cmp "-O2 -no-pie" calls "-O2 -no-pie: every case line's count equals gcov's"
spool_run probe --list -e 'block:fall' -e 'block:nested' ./swO2
unlike "$OUT" "(fall|nested) +block +int3 .*(unknown|jump table)" \
	"-O2: no block is an int3 for an unread jump table"

# clang -O0 keeps the index's copy in a stack slot and checks the register
# (mov [rbp-24],rax; sub rax,9; ja; mov rax,[rbp-24]): its tables are read
# too, and its case lines count what gcc's gcov counted (same program, same
# input).
if command -v clang >/dev/null && clang -O0 -g -o swc probe_switchy.c; then
	spool_run probe -q -e 'block:fall' -e 'block:nested' -e 'block:main' -- ./swc $N
	spool_run report --coverage --json spool.trace
	cp run.out covc.json
	is "$(python3 compare.py covc.json gO0.json.gz calls)" ok \
		"clang -O0: every case line's count equals gcov's"
	spool_run probe --list -e 'block:fall' -e 'block:nested' ./swc
	unlike "$OUT" "(fall|nested) +block +int3 .*(unknown|jump table)" \
		"clang -O0: no block is an int3 for an unread jump table"
else
	skip 2 "clang is not installed"
fi

# The fall-through cases are the ones an unread table got wrong: they
# must be there and ran more often than their own table entries alone.
is "$(python3 - covO0.json gO0.json.gz <<'PY'
import gzip, json, sys
src = open("probe_switchy.c").read().splitlines()
ours = {l["line"]: l["count"] for l in json.load(open(sys.argv[1]))["lines"]}
# a case line after "fall through" is reached both ways
n = 0
for i, l in enumerate(src):
    if "fall through" in l and i + 2 < len(src) and "hit(" in src[i + 2]:
        if ours.get(i + 3, 0) > 0:
            n += 1
print("ok" if n >= 6 else "only %d" % n)
PY
)" ok "-O0: the cases reached by falling through are counted"

done_testing
