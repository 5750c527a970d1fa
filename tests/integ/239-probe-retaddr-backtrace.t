#!/bin/bash
# SPDX-License-Identifier: MIT
# 239-probe-retaddr-backtrace.t - unwinders that spool does not interpose
# walk through frames whose exits go through the return address: the
# agent's return trampoline has CFI that finds the real return address
# (src/agent/agent_probe_ra.c). tests/progs/probe_bt calls backtrace(3) two
# calls deep with both callers' return addresses swapped (--exits retaddr):
# the walk reaches its caller and main (it stopped at the trampoline), and
# gdb's bt on the running program (gdb -p) shows the caller and main after
# the innermost function. The probes still count every call and exit.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_bt"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 9

native="$("$PROG")"
nframes="$(echo "$native" | sed -n 's/^frames //p')"
is "$(echo "$native" | head -n 2 | tr '\n' ' ')" "mid yes main yes " "natively the walk reaches the caller and main"

spool_run probe --list --exits retaddr -e 'func:bt_*' "$PROG"
is "$(grep -cE ' exit +retaddr ' run.out)" 2 "--list: both exits go through the return address"

spool_run probe -q --exits retaddr -e 'func:bt_*' -- "$PROG"
is_rc 0 "probed: the program's exit status"
is "$(echo "$OUT" | head -n 2 | tr '\n' ' ')" "mid yes main yes " \
	"probed: backtrace() walks through both swapped frames to the caller and main"
got="$(echo "$OUT" | sed -n 's/^frames //p')"
is "$got" "$((nframes + 2))" "probed: the native frames plus one trampoline frame per swapped frame"
got="$("$SPOOL" report --functions --json spool.trace 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("%s=%d/%d" % (f["name"], f["calls"], f["no_exit"])
               for f in sorted(d["functions"], key=lambda f: f["name"])))')"
is "$got" "bt_leaf=1/0 bt_mid=1/0" "each call counted, each with its exit"

# --- gdb's bt on the running program ---------------------------------------
if ! command -v gdb >/dev/null; then
	skip "gdb is not installed" 3
else
	rm -f pid.txt
	timeout 60 "$SPOOL" probe -q --exits retaddr -e 'func:bt_*' -o gdb.trace -- \
		"$PROG" wait "$PWD/pid.txt" >gdbrun.out 2>gdbrun.err &
	sp=$!
	for _ in $(seq 100); do
		[ -s pid.txt ] && break
		sleep 0.1
	done
	pid="$(cat pid.txt 2>/dev/null)"
	if [ -z "$pid" ]; then
		fail "the program under spool reached its wait"
		skip "no pid" 2
	else
		pass "the program under spool reached its wait"
		timeout 60 gdb -batch -nx -p "$pid" -ex bt >gdb.out 2>&1
		kill "$pid" 2>/dev/null
		wait "$sp" 2>/dev/null
		if grep -q 'ptrace: Operation not permitted' gdb.out; then
			skip "gdb may not attach here (ptrace_scope)" 2
		else
			frames="$(grep -E '^#[0-9]+ ' gdb.out | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+).*/\2/' |
				tr '\n' ' ')"
			like "$frames" 'bt_leaf .*bt_mid .*main ' "gdb bt: bt_leaf, then bt_mid, then main ($frames)"
			like "$frames" 'agent_probe_ra_return' "gdb bt: the trampoline's frames are named"
		fi
	fi
fi

done_testing
