#!/bin/bash
# SPDX-License-Identifier: MIT
# 74-probe-blocks.t - block and branch probes (spool probe -e block: -e
# branch:) and the coverage report (spool report --coverage, lcov .info).
#
# The program (tests/progs/probe_cov.c) is compiled here twice from the
# same source at -O0 -g: once plain (probed by spool), once with --coverage
# (run natively, counted by gcov). Comparison, per source line: spool's
# count of a line is the largest count of the probed blocks whose code
# belongs to that line (doc/probe.md); gcov's is its line count. For every
# line both report, the counts must be equal; the lines only one of them
# reports are the function headers and closing braces (gcov puts a
# function's entry on its declaration line, DWARF on the opening brace) and
# must be few. At -O0 each statement's code is contiguous, so the two
# definitions meet; optimized builds move code between lines (see
# doc/probe.md). Branches: for each marked if, the branch on its line must
# have gone to the next line (the then-part) as often as the program's own
# counter of "true", and elsewhere as often as "false". genhtml must accept
# the .info; the program's output must be unchanged.
# Jump tables: tests/progs/probe_switch.c at -O2 (gcc PIE: 32-bit offsets
# from the table; -no-pie: absolute addresses; clang) dispatches through switch jump
# tables; the count of each case's line (a call of that case's own
# function) must equal the program's own counter of that case, and the
# probes of the switch functions must be jumps (their targets are known).
. "$(dirname "$0")/lib.sh"

SRC="$REPO/tests/progs/probe_cov.c"
if ! command -v gcov >/dev/null || ! command -v gcc >/dev/null; then
	echo "1..0 # SKIP gcc/gcov are not installed"
	exit 0
fi
plan 18

cp "$SRC" probe_cov.c
ok "the test program builds plainly and with --coverage" \
	sh -c 'gcc -O0 -g -o cov "$PWD/probe_cov.c" && gcc -O0 -g --coverage -o covg "$PWD/probe_cov.c"' 

# --- --list ------------------------------------------------------------------
spool_run probe --list -e 'block:*' -e 'branch:*' ./cov
is_rc 0 "--list succeeds"
like "$OUT" '^classify +block +jump ' "--list: blocks get jump probes"
like "$OUT" '(^|\n)[a-z_]+ +(block|branch) +int3 .*(shorter|window)' \
	"--list: a block too short for a jump is an int3, with the reason"

# --- a run -------------------------------------------------------------------
native="$(./cov 300)"
spool_run probe -e 'block:*' -e 'branch:*' -- ./cov 300
is_rc 0 "spool probe runs the program and exits with its status"
is "$OUT" "$native" "the program's output is unchanged"
like "$ERR" 'coverage: [0-9]+ functions; blocks [0-9]+ of [0-9]+ hit' "a coverage summary at exit"

spool_run report --coverage --json -w app.info spool.trace
is_rc 0 "spool report --coverage -w app.info"
cp run.out cov.json

# --- against gcov ------------------------------------------------------------
./covg 300 >/dev/null
gcov -j -o . covg-probe_cov.gcda >/dev/null 2>&1
got="$(python3 - cov.json covg-probe_cov.gcov.json.gz <<'PY'
import gzip, json, sys
ours = {l["line"]: l["count"] for l in json.load(open(sys.argv[1]))["lines"]}
g = {}
for f in json.load(gzip.open(sys.argv[2]))["files"]:
    if f["file"].endswith("probe_cov.c"):
        for l in f["lines"]:
            g[l["line_number"]] = l["count"]
common = sorted(set(ours) & set(g))
bad = ["line %d: gcov %d, spool %d" % (n, g[n], ours[n]) for n in common if g[n] != ours[n]]
only = len(set(ours) ^ set(g))
if len(common) < 30 or only > 16 or bad:
    print("common %d, reported by one only %d; %s" % (len(common), only, "; ".join(bad)))
else:
    print("ok")
PY
)"
is "$got" ok "line counts equal gcov's on every line both report"

# --- branches against the program's own counters ----------------------------
got="$(python3 - cov.json probe_cov.c <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
marks = {}
for n, text in enumerate(open(sys.argv[2]), 1):
    m = re.search(r"BR:(\w+)", text)
    if m:
        marks[m.group(1)] = n
for name, line in sorted(marks.items()):
    brs = [b for b in d["branches"] if b["line"] == line]
    if len(brs) != 1:
        print(name, "branches on line", line, len(brs))
        continue
    b = brs[0]
    if b["taken_line"] == line + 1:
        t, f = b["taken"], b["not_taken"]
    elif b["fall_line"] == line + 1:
        t, f = b["not_taken"], b["taken"]
    else:
        t, f = "?", "?"
    print(name, t, f)
PY
)"
want="$(printf '%s\n' "$native" | grep -E '^(mod3|big|both|neg) ' | sort)"
is "$got" "$want" "each if's taken / not taken equals the program's true / false counts"

# --- jump tables (-O2 switch statements) ---------------------------------------
cp "$REPO/tests/progs/probe_switch.c" probe_switch.c
for pie in pie no-pie clang; do
	cc=gcc
	case $pie in
	pie) flags="-fPIE -pie" ;;
	no-pie) flags="-fno-pic -no-pie" ;;
	clang)
		cc=clang flags=""
		if ! command -v clang >/dev/null; then
			skip 2 "clang is not installed"
			continue
		fi
		;;
	esac
	if ! $cc -O2 -g $flags -o sw probe_switch.c; then
		fail "$pie: probe_switch builds at -O2"
		fail "$pie: (not run)"
		continue
	fi
	native="$(./sw 400)"
	spool_run probe --list -e 'block:dispatch*' ./sw
	unlike "$OUT" 'int3.*indirect jump' "$pie: the switch functions' blocks are not int3 for an unknown jump table"
	spool_run probe -q -e 'block:dispatch*' -- ./sw 400
	spool_run report --coverage --json spool.trace
	got="$(python3 - run.out probe_switch.c <<'PY'
import json, re, sys
lines = {l["line"]: l["count"] for l in json.load(open(sys.argv[1]))["lines"]}
for n, text in enumerate(open(sys.argv[2]), 1):
    m = re.search(r"CASE:(\d+)", text)
    # case 10 is also reached by falling through from case 9: two blocks share its line
    if m and m.group(1) != "10":
        print(m.group(1), lines.get(n, "none"))
PY
)"
	got="$(printf '%s\n' "$got" | sort -n)"
	want="$(printf '%s\n' "$native" | grep -Ev '^(10|acc) ' | sort -n)"
	is "$got" "$want" "$pie: each case's line count equals the program's counter of that case"
done

# --- genhtml -----------------------------------------------------------------
if command -v genhtml >/dev/null; then
	ok "genhtml accepts the .info" sh -c 'genhtml -q --branch-coverage -o html app.info >genhtml.out 2>&1' ||
		diag "$(cat genhtml.out)"
else
	skip 1 "genhtml (lcov) is not installed"
fi

# --- bad input ---------------------------------------------------------------
spool_run probe -e 'block:no_such_fn*' -- ./cov 3
is "$RC" 1 "a block spec that matches nothing fails" || show_run

done_testing
