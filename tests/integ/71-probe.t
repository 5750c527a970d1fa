#!/bin/bash
# SPDX-License-Identifier: MIT
# 71-probe.t - spool probe: function entry/exit probes on unmodified programs.
# Counts must equal the program's own counts and valgrind callgrind's exact
# call counts; every exit is paired with its entry; a function shorter than a
# jump falls back to int3 (and --list says so) and still counts right; a spec
# that matches nothing fails; a stripped binary is searched through .dynsym
# and says so; every exported libz function probed under pigz -p 2 leaves
# pigz's output unchanged.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_calls"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 14

# --- --list -----------------------------------------------------------------
spool_run probe --list -e 'func:probe_*' "$PROG"
is_rc 0 "--list succeeds"
like "$OUT" '^probe_tiny +entry +int3 ' "--list: the 3-byte function's entry is an int3 probe"
like "$OUT" '^probe_leaf_add +entry +jump ' "--list: an ordinary function's entry is a jump probe"

# --- a run -----------------------------------------------------------------
spool_run probe -q -e 'func:probe_*' -- "$PROG" 500
is_rc 0 "spool probe runs the program and exits with its status"
native="$("$PROG" 500)"
is "$OUT" "$native" "the program's output is unchanged"

spool_run report --functions --json spool.trace
is_rc 0 "spool report --functions reads the trace"
JSON="$OUT"
got="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
for f in sorted(d["functions"], key=lambda f: f["name"]):
    print(f["name"], f["calls"])
' "$JSON")"
want="$(echo "$native" | sort)"
is "$got" "$want" "calls per function equal the program's own counts (recursion, 2 threads, int3)"

unpaired="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(sum(f["no_exit"] for f in d["functions"]) + d["unmatched_exits"])
' "$JSON")"
is "$unpaired" 0 "every entry has its exit and every exit its entry"

callers="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
f = [f for f in d["functions"] if f["name"] == "probe_fib"][0]
print(" ".join("%s=%d" % (c["name"], c["calls"]) for c in f["callers"]))
' "$JSON")"
is "$callers" "probe_fib=464 main=1" "callers of the recursive function"

# --- against callgrind -----------------------------------------------------
if command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file=cg.out "$PROG" 500 >/dev/null 2>cg.err
	cg="$(python3 - cg.out <<'PY'
import re, sys
names, calls, cur = {}, {}, None
for line in open(sys.argv[1]):
    m = re.match(r'cfn=\((\d+)\)(?: (.*))?', line)
    if m:
        if m.group(2):
            names[m.group(1)] = m.group(2).strip()
        cur = names.get(m.group(1))
        continue
    m = re.match(r'fn=\((\d+)\)(?: (.*))?', line)
    if m and m.group(2):
        names[m.group(1)] = m.group(2).strip()
    m = re.match(r'calls=(\d+)', line)
    if m and cur:
        base = re.sub(r"'\d+$", '', cur)  # recursion levels: fib'2
        calls[base] = calls.get(base, 0) + int(m.group(1))
for n in sorted(calls):
    if n.startswith('probe_'):
        print(n, calls[n])
PY
)"
	is "$got" "$cg" "calls per function equal callgrind's exact counts"
else
	skip 1 "valgrind is not installed"
fi

# --- bad input ---------------------------------------------------------------
spool_run probe -e 'func:no_such_function_*' -- "$PROG"
num_cmp "$RC" -ne 0 "a spec that matches nothing fails"
like "$ERR" "matches no function" "... and says so"

cp "$PROG" stripped && strip stripped
spool_run probe --list -e 'func:probe_*' ./stripped
like "$ERR" "stripped.*\\.dynsym" "a stripped binary is searched through .dynsym, and spool says so"

# --- every exported libz function under pigz -------------------------------
PIGZ="$(command -v pigz || true)"
if [ -n "$PIGZ" ] && ldd "$PIGZ" | grep -q 'libz\.so'; then
	head -c 400000 /dev/urandom | base64 >in.txt
	spool_run probe -q -o pz.trace -e 'func:libz.so*:*' -- "$PIGZ" -p 2 -c in.txt
	a="$(md5sum <run.out)"
	b="$("$PIGZ" -p 2 -c in.txt | md5sum)"
	if [ "$RC" = 0 ] && [ "$a" = "$b" ]; then
		pass "pigz -p 2 with every libz function probed: output identical to native"
	else
		fail "pigz -p 2 with every libz function probed: output identical to native"
		show_run
	fi
else
	skip 1 "pigz linked with a shared libz is not installed"
fi

done_testing
