#!/bin/bash
# SPDX-License-Identifier: MIT
# 229-info-report-read-once.t - spool info opened the trace a second time
# only to list a recording's processes (rr_info_read opened a reader, and
# opening one reads every stream's packet index): each stream file was
# opened twice. It now lists them from the reader it already has: each
# stream once, and the same process list. Counted with strace (opens of
# stream_N), not timed.
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

plan 5

spool_run record -q -o rec.trace -- "$PROGS/rr_forkpipe" 3
is_rc 0 "record of a program that forks 3 children"
opens info rec.trace
is_rc 0 "spool info of the recording exits 0"
is "$N" 1 "  spool info opens each stream once"
like "$OUT" "recording: 4 processes" "  and still lists the recording's processes"
is "$(grep -cE '^[0-9]+ +[0-9]+ +[0-9]+ +0 +fork ' run.out)" 3 "  the 3 children, each a fork of process 0"

done_testing
