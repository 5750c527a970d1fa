#!/bin/bash
# SPDX-License-Identifier: MIT
# 50-babeltrace.t - every trace spool writes is a CTF trace babeltrace2 reads
# without spool: exit 0, no errors, and the number of lock events it prints
# (spool:lock and its short form spool:lock_op, trace format 2) equals the
# lock events spool counted in its summary line; all events together but the
# site definitions equal the events the run summary side file counts.
. "$(dirname "$0")/lib.sh"

if ! command -v babeltrace2 >/dev/null; then
	echo "1..0 # SKIP babeltrace2 is not installed (scripts/deps.sh)"
	exit 0
fi

plan 25

# bt_case DESC SPOOL-OPTIONS... -- PROG ARGS...
bt_case() {
	local desc="$1" n
	shift
	rm -rf spool.trace spool.trace.old
	spool_run locks -q "$@"
	is_rc 0 "$desc: spool exits 0"
	n=$(bt_count spool.trace spool:lock)
	is "$?" 0 "  babeltrace2 reads the trace"
	unlike "$(cat bt.err)" "ERROR|CRITICAL" "  without errors"
	is "$n" "$(($(summary_events) + $(summary_thread_events)))" \
		"  spool:lock events it prints = spool's lock and thread events"
	is "$(grep -vc ' spool:site: ' bt.out)" "$(trace_summary spool.trace events)" \
		"  all events it prints but the site definitions = the run summary's"
}

bt_case "lockcount 3 3000" -- "$PROGS/lockcount" 3 3000
bt_case "condvar 1000" -- "$PROGS/condvar" 1000
bt_case "rwlock 2 2 1000" -- "$PROGS/rwlock" 2 2 1000
bt_case "--stacks 8 on lockcount" --stacks 8 -- "$PROGS/lockcount" 2 500

# The decoded fields a user sees: the op and the lock, the stack, the thread
# table and the lock table.
like "$(grep -m1 ' spool:lock: ' bt.out)" "op = " "spool:lock events show the decoded op"
like "$(grep -m1 ' spool:lock: ' bt.out)" "stack = " "  and, with --stacks, the stack"
like "$(grep -m1 ' spool:thread: ' bt.out)" "tid = " "spool:thread events show the thread id"
like "$(grep -m1 ' spool:lockdef: ' bt.out)" "addr = " "spool:lockdef events show the lock address"
like "$(grep -m1 ' spool:proc: ' bt.out)" "pid = " "spool:proc events show the process"

done_testing
