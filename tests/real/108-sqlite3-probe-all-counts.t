#!/bin/bash
# SPDX-License-Identifier: MIT
# 108-sqlite3-probe-all-counts.t - Debian's sqlite3 inserting 20,000 rows
# (bench/probe.sh's workload) with every libsqlite3 function probed and
# spool's default ring: millions of probe hits, nearly all written in their
# short form by the collector's fast path for probe entries and exits
# (src/trace/writer.c), or by the agent with packets in the ring. Its
# output is the native one; no event is lost; the calls, missing exits and
# unmatched exits of every function are the same in a second run, in a run
# whose plan came from the plan cache, with packets in the ring
# (SPOOL_RING_PACKETS=1) and in trace format 1 (written field by field, no
# short forms): the short forms say exactly what the records said.
. "$(dirname "$0")/lib.sh"
need_progs sqlite3
plan 14

cat >q.sql <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x<20000) insert into t select x, 'v'||x from c;
select count(*), sum(a), max(b) from t;
SQL
SQ="$(command -v sqlite3)"
native="$("$SQ" :memory: <q.sql 2>&1)"
RUN_STDIN=q.sql

# probed NAME [ENV=VALUE...]: every libsqlite3 function probed into
# NAME.trace; NAME.counts: per function "name calls no_exit", then the
# unmatched exits; NAME.hits: probe hits (an entry and an exit per call)
probed() {
	local name="$1"
	shift
	wall env "$@" "$SPOOL" probe -q -o "$name.trace" -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory: \
		<q.sql >run.out 2>run.err
	OUT="$(cat run.out)"
	ERR="$(cat run.err)"
	diag "$name: ${WALL} s"
	"$SPOOL" report --functions --json "$name.trace" >"$name.json" 2>/dev/null
	json "$name.json" '"\n".join(sorted("%s %d %d" % (f["name"], f["calls"], f["no_exit"]) for f in d["functions"])) + "\nunmatched %d" % d["unmatched_exits"]' >"$name.counts"
	json "$name.json" 'sum(2 * f["calls"] for f in d["functions"])' >"$name.hits"
}

probed first
is "$OUT" "$native" "every function probed: sqlite3's output is the native one"
like "$ERR" ', 0 events lost,' "no event lost (the default ring)"
num_cmp "$(cat first.hits)" -gt 1000000 "over a million probe hits ($(cat first.hits))"
num_cmp "$(wc -l <first.counts)" -gt 300 "$(($(wc -l <first.counts) - 1)) functions in the report"

probed second SPOOL_DEBUG=1
like "$ERR" 'plan saved in the cache' "a second run, planned (SPOOL_DEBUG is in the plan's key)"
is "$(md5sum <second.counts)" "$(md5sum <first.counts)" \
	"a second run: the same calls, missing and unmatched exits per function"
probed cached SPOOL_DEBUG=1
like "$ERR" 'plan loaded from the cache' "a run whose plan comes from the plan cache"
is "$(md5sum <cached.counts)" "$(md5sum <first.counts)" "... the same counts"

probed packets SPOOL_RING_PACKETS=1
is "$OUT" "$native" "packets in the ring: the native output"
like "$ERR" ', 0 events lost,' "packets in the ring: no event lost"
is "$(md5sum <packets.counts)" "$(md5sum <first.counts)" "packets in the ring: the same counts"

probed format1 SPOOL_TRACE_FORMAT=1
is "$OUT" "$native" "trace format 1: the native output"
like "$ERR" ', 0 events lost,' "trace format 1: no event lost"
is "$(md5sum <format1.counts)" "$(md5sum <first.counts)" \
	"trace format 1 (no short forms): the same counts"

done_testing
