#!/bin/bash
# SPDX-License-Identifier: MIT
# 121-sqlite3-far-table-base.t - Debian's sqlite3_str_vappendf (sqlite's
# printf) reads each conversion's flags through a switch jump table whose
# base GCC -O2 loads once before the loop (lea r15, [rip+T]), 37
# instructions and two calls before the table's jmp: outside the 24
# instructions spool looked at, so the table was not read, spool warned
# "278 bytes from sqlite3_str_vappendf+0x111 are not reached from its code"
# and the flag and width cases were no blocks. Now the base is found on the
# line that falls through to the jmp: no such warning, and the block of the
# '-' flag counts exactly the rows formatted with '%-8d', none with '%8d'
# (the same query otherwise). The output is the native one.
. "$(dirname "$0")/lib.sh"
need_progs sqlite3
plan 6

N=400
SQ="$(command -v sqlite3)"
# query FLAG: N rows formatted with printf('%FLAG8d')
query() {
	cat <<SQL
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $N)
SELECT count(*), sum(length(printf('%${1}8d|%s', x * 7, 'v' || x))) FROM c;
SQL
}
query - >minus.sql
query '' >plain.sql
"$SQ" :memory: <minus.sql >native.out 2>&1

# blocks NAME: "start count" of each block of sqlite3_str_vappendf
blocks() {
	"$SPOOL" report --coverage --json "$1.trace" 2>/dev/null >"$1.json"
	json "$1.json" '"\n".join("%d %d" % (b["start"], b["count"]) for b in d["blocks"] if b["function"] == "sqlite3_str_vappendf")' >"$1.blocks"
}

RUN_STDIN=minus.sql
SPOOL_PLAN_CACHE=0 spool_run probe -o minus.trace -e 'block:libsqlite3.so.0:sqlite3_str_vappendf' -- "$SQ" :memory:
is_rc 0 "block: probes on sqlite3_str_vappendf: status 0"
cmp -s native.out run.out && pass "  sqlite3's output is the native one" ||
	{ fail "  sqlite3's output is the native one"; diag "$(diff native.out run.out | head -5)"; }
unlike "$ERR" "sqlite3_str_vappendf: [0-9]+ bytes .* not reached" \
	"  every byte its flag table reaches is known code"
blocks minus
RUN_STDIN=plain.sql
spool_run probe -o plain.trace -e 'block:libsqlite3.so.0:sqlite3_str_vappendf' -- "$SQ" :memory:
is_rc 0 "the same query with '%8d': status 0"
blocks plain
num_cmp "$(wc -l <minus.blocks)" -gt 100 "  $(wc -l <minus.blocks) blocks of sqlite3_str_vappendf counted"
flag="$(awk 'NR == FNR { p[$1] = $2; next } $2 == '"$N"' && p[$1] == 0 { n++ } END { print n + 0 }' plain.blocks minus.blocks)"
num_cmp "$flag" -gt 0 "  $flag blocks count the '-' flag: $N passes with '%-8d', none with '%8d'"
done_testing
