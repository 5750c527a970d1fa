#!/bin/bash
# SPDX-License-Identifier: MIT
# 170-probe-attach-step-mask.t - spool probe -p single-steps a thread out
# of the bytes a jump probe is about to replace. Each step ends with a
# SIGTRAP the kernel forces on the thread: one the thread blocked was
# unblocked for good and the program's SIGTRAP handler reset to the
# default, so after spool attached and detached the program read back
# another signal mask (tests/integ/46, "mask BAD" 1 attach in 10 under
# load) and an int3 of its own would have killed it. tests/progs/probe_step
# keeps three threads inside step_nap's first instruction (a nanosleep), so
# every attach steps them: with SIGTRAP blocked and handled, and with
# SIGTRAP ignored (the kernel resets an ignored one too), each thread's
# mask and SIGTRAP's disposition must be the program's after spool is gone.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_step"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
MODES=(block ign)
plan $((5 * ${#MODES[@]}))

for m in "${MODES[@]}"; do
	rm -f stop.now prog.out
	"$PROG" "$m" stop.now >prog.out 2>prog.err &
	PID=$!
	wait_ready prog.out
	SPOOL_DEBUG=1 spool_run probe -q -p "$PID" -e 'func:step_nap' --duration 200ms
	is_rc 0 "$m: spool probe -p attaches and detaches" || show_run
	like "$ERR" "single-stepped [0-9]+ times out of a probed range" \
		"$m: spool stepped a thread out of the probed entry (what this test is about)"
	touch stop.now
	wait "$PID"
	prc=$?
	is "$prc $(grep -c '^thread [0-9]: mask ok, trap ok$' prog.out) $(grep -c '^naps ok$' prog.out)" \
		"0 3 1" "$m: every thread's mask and SIGTRAP disposition are the program's" ||
		diag "$(cat prog.out)"
	# The probes counted the naps: the jump probe ran the displaced system call.
	spool_run report --functions --json spool.trace
	calls=$(python3 -c '
import json
d = json.load(open("run.out"))
print(sum(f["calls"] for f in d["functions"] if f["name"] == "step_nap"))' 2>/dev/null)
	num_cmp "${calls:-x}" -ge 1 "$m: the probe at step_nap counted its calls"
	unlike "$(cat prog.out)" "BAD" "$m: nothing the program checks changed"
done

done_testing
