#!/bin/bash
# SPDX-License-Identifier: MIT
# 229-info-report-read-once.t - two commands read a trace more than once:
# spool report without --KIND read the whole trace once per report it
# printed (functions, coverage, vars, sys, locks: 4 kinds, 4 opens of each
# stream and 3 full reads), and spool info opened the trace a second time
# only to list a recording's processes (rr_info_read opened a reader, and
# opening one reads every stream's packet index). Now the report opens the
# trace once and feeds every event to each analyzer in one pass, and each
# section is what the kind alone prints; info lists the processes from the
# reader it has. Counted with strace (opens of stream_N), not timed.
. "$(dirname "$0")/lib.sh"

CALLS="$PROGS/probe_calls"
if [ ! -x "$CALLS" ] || [ ! -x "$PROGS/rr_forkpipe" ] || ! command -v strace >/dev/null; then
	echo "1..0 # SKIP probe_calls, rr_forkpipe or strace missing"
	exit 0
fi

# opens ARGS...: run spool ARGS under strace; N = the most times one stream
# file was opened. (LeakSanitizer cannot run under ptrace.)
opens() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o st.txt "$SPOOL" "$@" </dev/null >run.out 2>run.err
	RC=$?
	OUT="$(cat run.out)"
	ERR="$(cat run.err)"
	check_sanitizer run.err "spool $*"
	N=$(grep -oE '"stream_[0-9]+"' st.txt | sort | uniq -c |
		awk '$1 > m { m = $1 } END { print m + 0 }')
}

plan 16

spool_run probe -q -e 'func:probe_*' -e 'block:probe_fib' -e 'time:probe_leaf_add' \
	-e 'var:long:a@probe_leaf_add' -e sys:cpu -- "$CALLS" 200
is_rc 0 "spool probe with function, block, var, time and sys probes"
opens report spool.trace
is_rc 0 "spool report without --KIND exits 0"
is "$N" 1 "  it opens each stream once"
cp run.out all.out
for k in functions coverage vars sys; do
	"$SPOOL" report --$k spool.trace >alone.out 2>/dev/null
	# the section under "== spool report --K ==", without the blank line
	# that separates it from the next
	awk -v h="== spool report --$k ==" '$0 == h { on = 1; next }
		/^== spool report --/ { on = 0 } on' all.out | sed '${/^$/d}' >part.out
	if [ -s part.out ] && cmp -s part.out alone.out; then
		pass "  its --$k section is what spool report --$k prints"
	else
		fail "  its --$k section is what spool report --$k prints"
		diag "$(diff part.out alone.out | head -20)"
	fi
done

# A probe trace of a program that takes locks: the lock report is in the
# same reading.
spool_run probe -q -o lk.trace -e 'func:worker' -e 'block:worker' -- "$PROGS/lockcount" 2 2000
is_rc 0 "spool probe of lockcount"
opens report lk.trace
is "$N" 1 "  spool report without --KIND opens each stream once"
like "$OUT" "^== spool report --locks ==" "  and it has a lock report"
like "$OUT" "^  shared_lock +mutex +4,000 " "  which counts the shared lock's 4000 acquisitions"

spool_run record -q -o rec.trace -- "$PROGS/rr_forkpipe" 3
is_rc 0 "record of a program that forks 3 children"
opens info rec.trace
is_rc 0 "spool info of the recording exits 0"
is "$N" 1 "  spool info opens each stream once"
like "$OUT" "recording: 4 processes" "  and still lists the recording's processes"
is "$(grep -cE '^[0-9]+ +[0-9]+ +[0-9]+ +0 +fork ' run.out)" 3 "  the 3 children, each a fork of process 0"

done_testing
