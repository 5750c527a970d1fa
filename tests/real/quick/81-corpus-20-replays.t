#!/bin/bash
# SPDX-License-Identifier: MIT
# 81-corpus-20-replays.t - verdicts that do not vary: one recording of
# Debian's sqlite3 (PRAGMA threads=2, sorter threads, an in-memory
# database, a result file) and one of a C++ std::thread program, each in
# serial and in sync mode, replayed 20 times: every replay gives the same
# verdict (identical), exit status, stdout, stderr and files
# (rr_corpus --replays 20; tests/real/95 does the same with python3).
. "$(dirname "$0")/../lib.sh"
need_progs sqlite3 g++
plan 8

cat >script.sql <<'SQL'
PRAGMA threads=2;
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000)
INSERT INTO t SELECT (x * 7919) % 5003, hex(randomblob(6)) || x FROM c;
.once sorted.txt
SELECT a, b FROM t ORDER BY b LIMIT 50;
SELECT count(*), sum(a), max(b) FROM t;
SQL
g++ -O2 -pthread -o cxx_threads "$REPO/tests/real/data/corpus_threads.cpp" 2>gxx.err ||
	diag "g++ failed:" "$(cat gxx.err)"
for m in serial sync; do
	rr_corpus sqlite3-20 "$m" --replays 20 --stdin script.sql -- sqlite3 :memory:
	rr_corpus cxx-threads-20 "$m" --replays 20 -- "$T_DIR/cxx_threads" 4 1000
done
done_testing
