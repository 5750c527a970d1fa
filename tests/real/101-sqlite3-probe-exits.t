#!/bin/bash
# SPDX-License-Identifier: MIT
# 101-sqlite3-probe-exits.t - Debian's sqlite3 (libsqlite3 stripped: its
# 1370 exported functions from .dynsym, GCC -O2) with every libsqlite3
# function probed. Where a ret has no 5-byte window (about 150 exits, one
# of them run 15,000 times by this script) the function's exits go through
# its return address instead of an int3 (doc/probe.md). Its output and
# exit status are the native ones (a failing statement included), no exit
# is an int3, the calls per function are the same as with the rets patched
# (--exits patch: int3 where no jump fits), every call of a swapped
# function has its exit, no function misses more exits than with the rets
# patched (it misses fewer: tail calls without a window), and no exit lacks
# its entry. The rings are large enough
# for every event (a loss would make the counts differ).
. "$(dirname "$0")/lib.sh"
need_progs sqlite3
plan 10

cat >script.sql <<'SQL'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000)
INSERT INTO t SELECT x, hex(x * 7919), x / 7.0 FROM c;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(a), max(b), round(sum(c), 3) FROM t;
SELECT b FROM t WHERE b LIKE 'A%' ORDER BY b LIMIT 3;
SELECT t1.a, t2.a FROM t t1 JOIN t t2 ON t2.a = t1.a * 2 WHERE t1.a < 4;
SELECT * FROM missing_table;
SELECT printf('%.3f', avg(c)) FROM t GROUP BY a % 3 ORDER BY 1;
SQL
SQ="$(command -v sqlite3)"
"$SQ" :memory: <script.sql >native.out 2>native.err
nrc=$?
native="$(cat native.out; echo; cat native.err)"

spool_run probe --list -e 'func:libsqlite3.so.0:*' "$SQ"
grep -E '^[^ ]+ +exit +retaddr ' run.out | awk '{print $1}' | sort -u >ra.txt
num_cmp "$(wc -l <ra.txt)" -gt 0 "--list: some libsqlite3 exits go through the return address"
unlike "$OUT" ' exit +int3 ' "--list: no exit is an int3"

RUN_STDIN=script.sql
spool_run probe -q --ring-size 128m -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory:
is "$RC" "$nrc" "every function probed: sqlite3's exit status is the native one ($nrc)"
is "$(cat run.out; echo; grep -v '^spool' run.err)" "$native" "its output (and its error message) are the native ones"
like "$ERR" ', 0 events lost,' "no event lost"
"$SPOOL" report --functions --json spool.trace >ra.json 2>/dev/null
spool_run probe -q --ring-size 128m --exits patch -o patch.trace -e 'func:libsqlite3.so.0:*' \
	-- "$SQ" :memory:
is "$(cat run.out; echo; grep -v '^spool' run.err)" "$native" "--exits patch: the same output"
RUN_STDIN=/dev/null
"$SPOOL" report --functions --json patch.trace >patch.json 2>/dev/null
calls() { json "$1" 'sorted("%s %d" % (f["name"], f["calls"]) for f in d["functions"])'; }
is "$(calls ra.json | md5sum)" "$(calls patch.json | md5sum)" \
	"calls per function are the same as with the rets patched ($(calls ra.json | wc -l) functions)"
noexit() {
	python3 - "$1" ra.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ra = set(open(sys.argv[2]).read().split())
print(sum(f["no_exit"] for f in d["functions"] if f.get("symbol", f["name"]) in ra or f["name"] in ra))
PY
}
is "$(noexit ra.json)" 0 "every call of a swapped function that returned has its exit"
more="$(python3 - <<'PY'
import json
a = {f["name"]: f["no_exit"] for f in json.load(open("patch.json"))["functions"]}
b = {f["name"]: f["no_exit"] for f in json.load(open("ra.json"))["functions"]}
print(" ".join("%s:%d>%d" % (k, b.get(k, 0), v) for k, v in sorted(a.items()) if b.get(k, 0) > v))
PY
)"
is "$more" "" "no function has more calls without a seen exit than with the rets patched"
is "$(json ra.json 'd["unmatched_exits"]')" 0 "no exit without its entry"

done_testing
