#!/bin/bash
# SPDX-License-Identifier: MIT
# 83-probe-sigtrap.t - int3 probes in a program that installs its own SIGTRAP
# handler after spool's agent (signal(), then sigaction()), raises SIGTRAP
# and executes int3 instructions of its own: every probe hit must still be
# counted, every trap of the program's must reach its handler, the old
# actions the program is given back must be its own, and its output must
# equal its native output.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_sigtrap"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 6
N=200

spool_run probe --list -e 'func:probe_trap_tiny' "$PROG"
like "$OUT" '^probe_trap_tiny +(entry|exit) +int3 ' "--list: probe_trap_tiny has an int3 probe"

native="$("$PROG" $N)"
like "$native" $'^tiny [0-9]+\nhandled [0-9]+\nold_ok 1$' "the program runs natively"

spool_run probe -q -e 'func:probe_trap_tiny' -- "$PROG" $N
is_rc 0 "spool probe runs it and exits with its status"
is "$OUT" "$native" "its output is unchanged: its handler saw its own traps only, old actions are its own"

spool_run report --functions --json spool.trace
calls="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(" ".join(str(f["calls"]) for f in d["functions"] if f["name"] == "probe_trap_tiny"))' "$OUT")"
is "$calls" "$N" "every call of the int3-probed function was recorded ($N)"
unmatched="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(d.get("unmatched_exits", 0))' "$OUT")"
is "$unmatched" 0 "no exit without its entry"

done_testing
