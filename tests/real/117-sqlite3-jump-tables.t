#!/bin/bash
# SPDX-License-Identifier: MIT
# 117-sqlite3-jump-tables.t - Debian's sqlite3 (GCC -O2) dispatches its
# byte-code, parser actions, tokens and pragmas through switch jump tables
# whose bound checks take shapes spool did not read: a byte compare of
# another register (cmp r15b, 0xb5: the decoder sign-extends the imm8), a
# compare of a copy of the index (mov rax, r12; ... cmp eax, 0x155), a byte
# compared in memory then loaded (cmp byte [r10+8], 0x2b; movzx eax, byte
# [r10+8]). spool then did not know the code the tables reach: it warned
# "N bytes ... are not reached from its code (data in the function?)" and
# put no block probe there (sqlite3VdbeExec: 10,819 bytes, 977 blocks
# instead of 1,293). Now each table is read and its cases are blocks: no
# such warning for these functions, the opcodes' blocks are counted, and
# the program's output is the native one.
. "$(dirname "$0")/lib.sh"
need_progs sqlite3
plan 7

cat >script.sql <<'SQL'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000)
INSERT INTO t SELECT x, hex(x * 7919), x / 7.0 FROM c;
CREATE INDEX tb ON t(b);
PRAGMA integrity_check;
SELECT count(*), sum(a), max(b), round(sum(c), 3) FROM t;
SELECT printf('%.3f', avg(c)) FROM t GROUP BY a % 3 ORDER BY 1;
SQL
SQ="$(command -v sqlite3)"
"$SQ" :memory: <script.sql >native.out 2>&1

fns="sqlite3VdbeExec sqlite3Parser sqlite3GetToken sqlite3Pragma"
specs=()
for f in $fns; do specs+=(-e "block:libsqlite3.so.0:$f"); done
RUN_STDIN=script.sql
SPOOL_PLAN_CACHE=0 spool_run probe -o b.trace "${specs[@]}" -- "$SQ" :memory:
is_rc 0 "block: probes on four functions dispatching through jump tables: status 0"
cmp -s native.out run.out && pass "  sqlite3's output is the native one" ||
	{ fail "  sqlite3's output is the native one"; diag "$(diff native.out run.out | head -5)"; }
for f in $fns; do
	unlike "$ERR" "$f: [0-9]+ bytes .* not reached" "  $f: every byte its tables reach is known code"
done
spool_run report --coverage b.trace
hit="$(sed -nE 's/^sqlite3VdbeExec +[0-9]+ +([0-9]+)\/([0-9]+) .*/\1/p' run.out)"
num_cmp "${hit:-0}" -gt 100 "  the coverage report counts blocks of the byte-code's cases ($hit hit)"
done_testing
