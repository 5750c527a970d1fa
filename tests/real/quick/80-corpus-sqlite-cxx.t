#!/bin/bash
# SPDX-License-Identifier: MIT
# 80-corpus-sqlite-cxx.t - the quick part of the record/replay corpus
# (tests/real/82-95 is the rest): Debian's sqlite3 (a script on stdin,
# PRAGMA threads=2 so its sorter runs worker threads, a database file
# written) and a C++ std::thread program built here with g++ (std::mutex,
# shared_mutex, condition_variable; tests/real/data/corpus_threads.cpp),
# each recorded in serial and in sync mode and replayed 3 times: exit
# status, stdout, stderr and the files left in the working directory are
# the recording's (rr_corpus in tests/real/lib.sh).
. "$(dirname "$0")/../lib.sh"
need_progs sqlite3 g++
plan 8

cat >script.sql <<'SQL'
PRAGMA threads=2;
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
INSERT INTO t SELECT (x * 7919) % 20011, hex(randomblob(8)) || x FROM c;
CREATE INDEX ti ON t(a, b);
SELECT count(*), sum(a) FROM t;
SELECT a FROM t ORDER BY b LIMIT 3;
.once result.txt
SELECT a, b FROM t ORDER BY b LIMIT 100;
SQL
for m in serial sync; do
	rr_corpus sqlite3 "$m" --stdin script.sql -- sqlite3 :memory:
done

g++ -O2 -pthread -o cxx_threads "$REPO/tests/real/data/corpus_threads.cpp" 2>gxx.err ||
	diag "g++ failed:" "$(cat gxx.err)"
for m in serial sync; do
	rr_corpus cxx-threads "$m" -- "$T_DIR/cxx_threads" 4 2000
done
done_testing
