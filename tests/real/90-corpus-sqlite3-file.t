#!/bin/bash
# SPDX-License-Identifier: MIT
# 90-corpus-sqlite3-file.t - the record/replay corpus: Debian's sqlite3
# with a database file in its directory (created, 20,000 rows, an index,
# PRAGMA threads=2 for its sorter threads), a script on stdin; recorded in
# serial and in sync mode, 3 replays each, the database file compared
# byte for byte. (quick/80 runs sqlite3 on an in-memory database.) sqlite
# compares the inode stat gives for the database's name with the one fstat
# gave for its descriptor: when stat was answered from the recording and
# fstat by the kernel, the file the replay made again had another inode,
# sqlite took the database for moved and opened it read-only ("attempt to
# write a readonly database"); fstat is recorded too now.
. "$(dirname "$0")/lib.sh"
need_progs sqlite3
plan 4

cat >script.sql <<'SQL'
PRAGMA threads=2;
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
INSERT INTO t SELECT (x * 7919) % 20011, hex(randomblob(8)) || x FROM c;
CREATE INDEX ti ON t(a, b);
SELECT count(*), sum(a) FROM t;
SELECT a FROM t ORDER BY b LIMIT 3;
SQL
for m in serial sync; do
	rr_corpus sqlite3-file "$m" --stdin script.sql -- sqlite3 db.sqlite
done
done_testing
