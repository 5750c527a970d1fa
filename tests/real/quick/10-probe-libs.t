#!/bin/bash
# SPDX-License-Identifier: MIT
# 10-probe-libs.t - spool probe never changes what a real -O2 program
# computes: Debian's sqlite3 with every exported sqlite3_* function of
# libsqlite3 probed, pigz -p 2 with every exported function of libz probed
# (a 4 KiB ring, so the rings fill and the full-ring path runs from the
# trampolines), and pigz -d with every basic block of libz's inflate*
# counted (pigz uses inflateBack). Each output is compared byte for byte with the native run's.
# spool report without --KIND on a pigz probe trace shows the function and
# the lock reports.
. "$(dirname "$0")/../lib.sh"
need_progs sqlite3 pigz
plan 14

cat >q.sql <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000)
  insert into t select x, printf('%08x', x * 2654435761 % 4294967296) from c;
create index ib on t(b);
select count(*), sum(a), min(b), max(b) from t;
select a from t where a % 997 = 0;
SQL
sqlite3 :memory: <q.sql >native.out
RUN_STDIN=q.sql spool_run probe -o sq.trace -e 'func:libsqlite3.so*:sqlite3_*' -- sqlite3 :memory:
is_rc 0 "sqlite3 with libsqlite3's sqlite3_* probed exits 0"
ok "its output is the native run's, byte for byte" cmp -s run.out native.out
like "$ERR" '^spool: ([0-9]+) of \1 probes placed' "every probe was placed"
like "$ERR" 'sqlite3_step +[0-9]+' "the report counts sqlite3_step"

head -c 1500000 /dev/zero | tr '\0' 'a' >data
"$REAL_PY" -c 'import random; random.seed(7); print("".join(random.choice("abcdefgh \n") for _ in range(1500000)))' >>data
pigz -p 2 -c data >native.gz
spool_run probe -o z.trace --ring-size 4k -e 'func:libz.so*:*' -- pigz -p 2 -c data
is_rc 0 "pigz -p 2 with every libz function probed (4k rings) exits 0"
ok "the compressed output is the native run's, byte for byte" cmp -s run.out native.gz
like "$ERR" 'deflate +[0-9]+' "the report counts deflate"
events=$("$SPOOL" info z.trace 2>/dev/null | sed -n 's/^events: \([0-9]*\).*/\1/p')
# (an event is 16 bytes at least: 256 fill a 4k ring)
num_cmp "$events" -gt 256 "more events than a 4k ring holds went through it"

# Without --KIND, spool report gives every report the trace was made for:
# the function probes', then pigz's own locks (its threads' mutexes).
spool_run probe -q -o zl.trace -e 'func:libz.so*:deflate*' -- pigz -p 2 -c data
"$SPOOL" report zl.trace >rep.out 2>/dev/null
is "$(grep '^== ' rep.out)" "== spool report --functions ==
== spool report --locks ==" "spool report of it shows the function report, then the lock report"
like "$(sed -n '/^== spool report --locks ==/,$p' rep.out)" 'mutex +[0-9]' "  the lock report lists pigz's mutexes"

spool_run probe -o d.trace --ring-size 4k -e 'block:libz.so*:inflate*' -- pigz -dc native.gz
is_rc 0 "pigz -d with libz's inflate* blocks counted exits 0"
ok "it decompresses to the input, byte for byte" cmp -s run.out data
"$SPOOL" report --coverage --json d.trace >cov.json 2>/dev/null
# (pigz decompresses with inflateBack: one call, its loop in blocks)
hit=$(json cov.json 'sum(b["count"] for b in d["blocks"] if b["function"] == "inflateBack")')
num_cmp "$hit" -gt 1000 "the coverage report counts inflateBack's blocks"
unlike "$ERR" 'not placed|error' "spool says nothing went wrong"
done_testing
