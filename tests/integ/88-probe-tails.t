#!/bin/bash
# SPDX-License-Identifier: MIT
# 88-probe-tails.t - spool probe on functions that leave by a tail call (a
# direct jmp to another function, a jmp through a struct of pointers, a
# pointer variable, a register loaded from one, a jne to another function)
# and a tiny function followed by padding: their exits are jump probes at
# the tail jump, the tiny function's entry and exit share one trampoline,
# the counts of calls equal the program's own, every entry has its exit, and the report
# shows no "calls without a seen exit". Then every libsqlite3 function
# probed under sqlite3 leaves its output unchanged, and spool does not
# claim libsqlite3 (DT_NEEDED, named by its soname) is loaded only by dlopen.
# Block probes on the libc functions the agent runs while placing probes do
# not kill the program with SIGTRAP.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_tails"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 21

spool_run probe --list -e 'func:pt_*' "$PROG"
is_rc 0 "--list succeeds"
like "$OUT" '^pt_direct +exit +jump .*jmp ' "a direct tail call's exit is a jump probe at the jmp"
like "$OUT" '^pt_ptr +exit +jump .*jmp \[rax' "a tail call through a struct of pointers: jump probe"
like "$OUT" '^pt_got +exit +jump .*jmp \[' "a tail call through a pointer variable: jump probe"
like "$OUT" '^pt_reg +exit +jump .*jmp rax' "a tail call through a loaded register: jump probe"
like "$OUT" '^pt_cond +exit +jump .*ret' \
	"a ret right before a branch target: jump probe displacing the je"
like "$OUT" '^pt_max +exit +jump .*ret' \
	"a ret targeted by a jge: jump probe holding the jge (it branches inside the trampoline)"
like "$OUT" '^pt_jcc +exit +jump .*jnz' "a conditional tail call (jne rel32): jump exit probe"
like "$OUT" '^pt_jcc8 +exit +jump .*jnz' "a conditional tail call (jne rel8): jump exit probe"
like "$OUT" '^pt_tiny +entry +jump ' \
	"a function returning within 5 bytes, padding after: jump entry"
like "$OUT" '^pt_tiny +exit +shared .*ret +counted by probe [0-9]+ \(jump\)' \
	"... whose exit is run by the entry's trampoline (--list: shared)"

spool_run probe -q -e 'func:pt_*' -- "$PROG" 500
native="$("$PROG" 500 2>/dev/null)"
is "$OUT" "$native" "the program's output is unchanged"
is "$(grep -E '^(max|sum) ' run.err)" "$("$PROG" 500 2>&1 >/dev/null)" \
	"... and so are its results (pt_max's maximum: the jge taken and not)"
spool_run report --functions --json spool.trace
JSON="$OUT"
got="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
for f in sorted(d["functions"], key=lambda f: f["name"]):
    print(f["name"], f["calls"])
' "$JSON")"
is "$got" "$(echo "$native" | sort)" "calls per function equal the program's own counts"
unpaired="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(sum(f["no_exit"] for f in d["functions"]) + d["unmatched_exits"])
' "$JSON")"
is "$unpaired" 0 "every entry has its exit (tail calls included) and every exit its entry"
spool_run report --functions spool.trace
unlike "$OUT" 'without a seen exit' "the report shows no calls without a seen exit"

# --- blocks of the libc functions the agent itself runs while placing
# probes (do_sym under dlsym, mprotect, memset, memcpy): their int3s must
# find the SIGTRAP handler and the trap table ready.
spool_run probe -q -o libc.trace -e 'block:libc.so.6:[dm]*' -- "$PROG" 50
if is "$RC:$OUT" "0:$("$PROG" 50 2>/dev/null)" \
	"block:libc.so.6:[dm]* (dlsym, mprotect, memcpy): same output"; then
	like "$ERR" ' ([0-9]+) of \1 probes placed' "... and every probe was placed"
else
	show_run
	skip 1 "the run failed"
fi

# Function and block probes on the same libc functions: a block's first
# instruction is under the function's entry jump, so its int3 sits further
# on, and the SIGTRAP handler must find it by the int3's own address.
spool_run probe -q -o libc2.trace -e 'func:libc.so.6:m*' -e 'block:libc.so.6:m*' -- "$PROG" 50
is "$RC:$OUT" "0:$("$PROG" 50 2>/dev/null)" \
	"func: and block: probes on libc's m* functions together: same output"

# --- every libsqlite3 function under sqlite3 --------------------------------
SQLITE="$(command -v sqlite3 || true)"
if [ -n "$SQLITE" ] && ldd "$SQLITE" | grep -q 'libsqlite3\.so'; then
	cat >q.sql <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x<2000) insert into t select x, 'v'||x from c;
select count(*), sum(a), max(b) from t;
SQL
	RUN_STDIN=q.sql spool_run probe -q -o sq.trace -e 'func:libsqlite3.so.0:*' -- \
		"$SQLITE" :memory:
	a="$(cat run.out)"
	b="$("$SQLITE" :memory: <q.sql)"
	if [ "$RC" = 0 ] && [ "$a" = "$b" ] && [ -n "$b" ]; then
		pass "sqlite3 with every libsqlite3 function probed: output identical to native"
	else
		fail "sqlite3 with every libsqlite3 function probed: output identical to native"
		show_run
	fi
	# libsqlite3.so.0 is a DT_NEEDED library named by its soname (ldd may
	# show it under /lib, spool under /usr/lib): it is loaded at startup.
	unlike "$ERR" 'not loaded at startup' \
		"a DT_NEEDED library named by its soname is not called a dlopen one"
else
	skip 2 "sqlite3 linked with a shared libsqlite3 is not installed"
fi

done_testing
