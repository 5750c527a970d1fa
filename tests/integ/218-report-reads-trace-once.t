#!/bin/bash
# SPDX-License-Identifier: MIT
# 218-report-reads-trace-once.t - after a report of a trace whose writer did
# not finish, spool opened the trace again and read every event a second
# time only to print the loss line ("DIR is incomplete: ..."): a big
# unfinished trace cost two full reads. The loss now comes from the reading
# the report did (each analyzer hands back its reader's loss), so every
# report kind, `spool path` and `spool export --folded/--flamegraph` open
# each stream file once (path: once per pass, two passes), and say the same
# loss as before. Counted with strace (opens of stream_N), not timed.
. "$(dirname "$0")/lib.sh"

CALLS="$PROGS/probe_calls"
if [ ! -x "$CALLS" ] || ! command -v strace >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP probe_calls, strace or python3 missing"
	exit 0
fi
plan 16

spool_run probe -q -e 'func:probe_*' -e 'block:probe_fib' -e 'time:probe_leaf_add' \
	-e sys:cpu -- "$CALLS" 200
is_rc 0 "spool probe with function, block, time and sys probes"
nstreams=$(ls spool.trace | grep -c '^stream_')
num_cmp "$nstreams" -gt 0 "  the trace has stream files"
# What a killed writer leaves: the state file still says "writing".
python3 -c '
import sys
s = "format=spool-state-1\nstate=writing\nring_full=7\nno_ring=0\nseq_gaps=0\n"
open(sys.argv[1], "w").write(s)' spool.trace/.spool/state
WHY='spool.trace is incomplete: 7 events lost .*its writer did not finish'

# opens ARGS...: run spool ARGS under strace; N = the most times one stream
# file was opened. (LeakSanitizer cannot run under ptrace.)
opens() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o st.txt "$SPOOL" "$@" </dev/null >run.out 2>run.err
	RC=$?
	ERR="$(cat run.err)"
	check_sanitizer run.err "spool $*"
	N=$(grep -oE '"stream_[0-9]+"' st.txt | sort | uniq -c |
		awk '$1 > m { m = $1 } END { print m + 0 }')
}

for k in functions coverage vars sys locks; do
	opens report --$k spool.trace
	is "$N" 1 "report --$k of an unfinished trace opens each stream once"
	like "$ERR" "$WHY" "  and still says what the trace is missing"
done
opens export --folded -w f.txt spool.trace
is "$N" 1 "export --folded opens each stream once"
like "$ERR" "$WHY" "  and says what the trace is missing"
opens path spool.trace
is "$N" 2 "spool path opens each stream once per pass (two)"
like "$ERR" "$WHY" "  and says what the trace is missing"
done_testing
