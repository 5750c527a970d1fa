#!/bin/bash
# SPDX-License-Identifier: MIT
# 383-report-tables-aligned.t - every table spool report prints stays in
# line when its names are long C++ names (issue 17): the function table and
# its per-thread table (Bank::transfer(int, int, long), std::thread's
# _State_impl<...>::_M_run(), 90 characters: the name column was a fixed
# 28, so the numbers after a long name moved right), the lock tables (locks
# named by their init site in std::lock<std::mutex, std::mutex>), the
# threads table and the coverage table. The rule (doc/report.md, "Tables"):
# a column is as wide as its widest cell, names are never cut. A table
# lines up when each right-aligned column ends where its header ends, on
# every row.
. "$(dirname "$0")/lib.sh"

if ! command -v g++ >/dev/null; then
	echo "1..0 # SKIP no g++"
	exit 0
fi
plan 12

g++ -g -O2 -fno-omit-frame-pointer -pthread -o bank "$REPO/tests/progs/cxx/bank.cpp" 2>cc.err
ok "the C++ bank program (std::thread, std::lock) builds" test -x bank || diag "$(cat cc.err)"

# aligned FILE HEADER_RE [LEFT...]: the table whose header line matches
# HEADER_RE (to the first blank line); every column but the first and the
# left-aligned ones named LEFT must end at its header's last character on
# every row that has that cell, and a left-aligned one start where its
# header starts. Prints what is out of line (exit 1), or that the table or
# a long name (> 40 characters) is missing (exit 2).
aligned() {
	python3 - "$@" <<'PY'
import re, sys
text = open(sys.argv[1]).read().split("\n")
hre = re.compile(sys.argv[2])
left = set(sys.argv[3:])
start = next((i for i, l in enumerate(text) if hre.search(l)), None)
if start is None:
    print("no table with header /%s/" % sys.argv[2]); sys.exit(2)
hdr = text[start]
rows = []
for l in text[start + 1:]:
    if not l.strip():
        break
    if l.lstrip().startswith("(") or l.lstrip().startswith("..."):
        continue  # a note under a row, not a row
    rows.append(l)
# the header's words; two spaces or more separate columns ("total ms" is one)
cols = [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", hdr)]
# the first column (the name) is left-aligned; a right-aligned column ends
# where its header ends: the cell's last character sits there
bad = 0
longest = 0
for r in rows:
    longest = max([longest] + [len(x) for x in re.split(r"\s{2,}", r.strip())])
    for (s, e) in cols[1:]:
        if len(r.rstrip()) < e:
            continue  # a row without that cell (a caller's row)
        if hdr[s:e] in left:
            out = r[s] == " " or r[s - 1] != " "
        else:
            out = r[e - 1] == " " or (e < len(r) and r[e] != " ")
        if out:
            print("out of line at column %d (%r): %r" % (e, hdr[s:e], r)); bad += 1
            break
if longest <= 40:
    print("no name longer than 40 characters in the table (longest %d)" % longest); sys.exit(2)
if not rows:
    print("no row"); sys.exit(2)
sys.exit(1 if bad else 0)
PY
}

spool_run probe -q -o b.trace -e 'func:*' -- ./bank 3 40
is_rc 0 "spool probe -e 'func:*' on the bank program (functions, locks, threads)"
spool_run report b.trace
report=$OUT
echo "$report" >report.txt

check() { # DESC FILE HEADER_RE [LEFT...]
	local out desc=$1 file=$2
	shift 2
	out=$(aligned "$file" "$@")
	ok "$desc" test -z "$out" || diag "$out" "$(grep -A12 -E -- "$1" "$file" | head -16)"
}
# the function columns are right-aligned to their headers
# (left-aligned names: the tid table's function column is one too)
check "functions: every row's numbers under their headers, with names of 90 characters" \
	report.txt '^function +calls +total ms'
ok "  callers are rows of the table, their calls in its calls column" \
	grep -Eq '^    <- std::thread::_State_impl<.*>::_M_run\(\) +[0-9]+$' report.txt
check "functions per thread: the calls column in line" report.txt '^tid +function +calls$' function
check "locks: every row in line, with locks named by a C++ init site" report.txt \
	'^  lock +type +acq' type
check "locks, wait and hold details: in line" report.txt '^  lock +wait avg'
check "where the locks were made: in line" report.txt '^  init site +locks' locks
# the threads table has short names (comm): its columns must still line up
out=$(aligned report.txt '^  thread +name +tid' name)
ok "threads: in line" test "$(echo "$out" | grep -c 'out of line')" = 0 || diag "$out"

# coverage: block probes on every function of the executable
spool_run probe -q -o c.trace -e 'block:*' -- ./bank 2 5
spool_run report --coverage c.trace
echo "$OUT" >cov.txt
check "coverage: the function table in line with C++ names" cov.txt '^function +calls +blocks hit' \
	module

# and the text report of spool probe itself (the same table)
spool_run probe -o p.trace -e 'func:*' -- ./bank 2 5
echo "$ERR" >probe.err
check "spool probe's own report: in line" probe.err '^function +calls +total ms'
unlike "$report" "…" "names are never cut (no ellipsis)"

done_testing
