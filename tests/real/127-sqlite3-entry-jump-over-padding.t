#!/bin/bash
# SPDX-License-Identifier: MIT
# 127-sqlite3-entry-jump-over-padding.t - Debian's libsqlite3 (stripped)
# has sqlite3StrICmp start with `xor ecx,ecx; jmp L` and 4 bytes of nop
# padding: the function jumps to the test at the bottom of its loop within
# its first 5 bytes. Its entry was an int3 (a signal a call, the hottest
# int3 of sqlite3 with every function probed); the jump window now covers
# the padding, which nothing reaches. The entry is a jump, and the calls
# counted are exactly those gdb counts with a breakpoint on the function;
# every call returns (no missing exit), with one function or every
# libsqlite3 function probed; sqlite3's output is the native one.
. "$(dirname "$0")/lib.sh"
need_progs sqlite3 gdb
plan 8

cat >q.sql <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x<2000) insert into t select x, 'v'||x from c;
select count(*), sum(a), max(b) from t;
SQL
SQ="$(command -v sqlite3)"
native="$("$SQ" :memory: <q.sql 2>&1)"

"$SPOOL" probe --list -e 'func:libsqlite3.so.0:sqlite3StrICmp' -- "$SQ" >list.out 2>/dev/null
like "$(cat list.out)" '^sqlite3StrICmp +entry +jump ' "sqlite3StrICmp's entry is a jump probe"
unlike "$(cat list.out)" 'leaves within its first' "  not an int3 for leaving within 5 bytes"

# gdb's count: a breakpoint at the function, never stopping (ignore count)
gdb -q -batch -nx -ex 'set breakpoint pending on' -ex 'break sqlite3StrICmp' \
	-ex 'ignore 1 100000000' -ex "run :memory: <q.sql >/dev/null" -ex 'info breakpoints' \
	"$SQ" >gdb.out 2>&1 </dev/null
want="$(sed -n 's/.*already hit \([0-9]*\) time.*/\1/p' gdb.out)"
num_cmp "${want:-0}" -gt 0 "gdb counts sqlite3StrICmp's calls (${want:-none})" || diag "$(tail -n 5 gdb.out)"

# counted SPEC NAME: spool probe SPEC on the workload; OUT = sqlite3's
# output, GOT = "calls no_exit" of sqlite3StrICmp
counted() {
	"$SPOOL" probe -q -o "$2.trace" -e "$1" -- "$SQ" :memory: <q.sql >run.out 2>run.err
	OUT="$(cat run.out)"
	"$SPOOL" report --functions --json "$2.trace" >"$2.json" 2>/dev/null
	GOT="$(json "$2.json" '" ".join("%d %d" % (f["calls"], f["no_exit"]) for f in d["functions"] if f["name"] == "sqlite3StrICmp")')"
}
counted 'func:libsqlite3.so.0:sqlite3StrICmp' one
is "$OUT" "$native" "sqlite3StrICmp probed: the native output"
is "$GOT" "${want:-?} 0" "  its calls are gdb's count, each with its exit"
counted 'func:libsqlite3.so.0:*' all
is "$OUT" "$native" "every libsqlite3 function probed: the native output"
is "$GOT" "${want:-?} 0" "  sqlite3StrICmp's calls are gdb's count, each with its exit"
like "$(cat run.err)" ', 0 events lost,' "  no event lost"

done_testing
