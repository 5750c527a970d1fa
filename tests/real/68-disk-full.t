#!/bin/bash
# SPDX-License-Identifier: MIT
# 68-disk-full.t - the trace's disk fills up (a 256 KiB tmpfs) while
# Debian's sqlite3 runs under `spool locks` and pigz -p 2 under `spool
# record` (issue 12: 552,216 of 601,654 events never reached the disk and
# spool said "0 lost" and exited 0). The programs' outputs are whole, spool
# exits 4 and says what it lost, `spool info` says the same, and the
# replay refuses the incomplete recording with 4.
. "$(dirname "$0")/lib.sh"
need_progs sqlite3 pigz
mkdir tiny
if ! mount -t tmpfs -o size=256k tmpfs tiny 2>/dev/null; then
	echo "1..0 # SKIP cannot mount a tmpfs (needs root)"
	exit 0
fi
trap 'umount "$T_DIR/tiny"; _t_cleanup' EXIT
plan 10

cat >q.sql <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000)
  insert into t select x, printf('%08x', x * 2654435761 % 4294967296) from c;
create index ib on t(b);
select count(*), sum(a), min(b), max(b) from t;
SQL
sqlite3 :memory: <q.sql >native.out
RUN_STDIN=q.sql spool_run locks -q -o tiny/l.trace -- sqlite3 :memory:
is_rc 4 "sqlite3 under spool locks on a full disk: spool exits 4"
ok "sqlite3's output is whole" cmp -s run.out native.out
lost=$(summary_lost)
num_cmp "$lost" -gt 0 "the summary line counts the events not written ($lost)"
like "$ERR" "incomplete: $lost events lost \\($lost not written to the disk\\)" "and says why"
is "$(info_lost tiny/l.trace)" "$lost" "spool info says the same number"
rm -rf tiny/l.trace

head -c 3000000 /dev/urandom | base64 >data
pigz -p 2 -c data >native.gz
spool_run record -q -o tiny/r.trace -- pigz -p 2 -c data
is_rc 4 "pigz under spool record on a full disk: spool exits 4"
ok "pigz's output is whole" cmp -s run.out native.gz
like "$ERR" 'No space left on device' "spool says the disk is full"
"$SPOOL" info tiny/r.trace >/dev/null 2>&1
is "$?" 4 "spool info exits 4 for the recording"
spool_run replay -q -o rep.trace tiny/r.trace
is_rc 4 "spool replay refuses it with 4"
done_testing
