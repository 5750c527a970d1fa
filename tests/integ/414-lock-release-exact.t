#!/bin/bash
# SPDX-License-Identifier: MIT
# 414-lock-release-exact.t - spool:lock_release (format 2.3, class 19,
# doc/trace-format.md): a release is 8 bytes naming its lock and site
# (format 2.2's class 18, 6 bytes, implied the lock from the event before,
# which babeltrace2 could not show), and every report reads exactly
# what the full events said.
#
# The reference is written without format 2 anywhere: the records mode with
# format 1 (SPOOL_RING_PACKETS=0 SPOOL_TRACE_FORMAT=1) has the collector
# write each record the agent made field by field. That trace written again
# in format 2 (`spool decode --trace-out`, through the writer's encoder,
# which uses spool:lock_release) must give the same lock report (text and
# JSON: holds, waits, contentions per lock and thread), the same exports
# and the same babeltrace2 event count. Then the agent's own packets (the
# default mode): its releases are spool:lock_release, its lock report has
# the counts the program makes by construction, and written again in format
# 1 it reports the same.
. "$(dirname "$0")/lib.sh"

plan 16

classes() { python3 "$REPO/bench/trace_classes.py" "$1"; }
nclass() { classes "$1" | awk -v c="$2" '$1 == c { print $2 }'; }
# same_reports A B WHAT: the lock report (text, JSON) and the exports of
# the two traces are the same but for the trace's name
same_reports() {
	local a=$1 b=$2 what=$3 x
	for x in "$a" "$b"; do
		"$SPOOL" report --locks "$x" 2>/dev/null | sed "s|$x|TRACE|g" >"$x.txt"
		"$SPOOL" report --locks --json "$x" 2>/dev/null | sed "s|\"dir\": \"$x\"|TRACE|" >"$x.json"
		"$SPOOL" export --chrome -w "$x.chrome" "$x" >/dev/null 2>&1
	done
	if [ -s "$a.txt" ] && cmp -s "$a.txt" "$b.txt"; then pass "  $what: the same text report"; else
		fail "  $what: the same text report"
		diff "$a.txt" "$b.txt" | head -n 10 | while read -r l; do diag "$l"; done
	fi
	if [ -s "$a.json" ] && cmp -s "$a.json" "$b.json"; then pass "  $what: the same JSON report"; else
		fail "  $what: the same JSON report"
		diff "$a.json" "$b.json" | head -n 10 | while read -r l; do diag "$l"; done
	fi
	if [ -s "$a.chrome" ] && cmp -s "$a.chrome" "$b.chrome"; then
		pass "  $what: the same Chrome export"
	else
		fail "  $what: the same Chrome export"
	fi
}

# --- 1. the reference: format 1 from the raw records ---
SPOOL_RING_PACKETS=0 SPOOL_TRACE_FORMAT=1 spool_run locks -q -o ref -- "$PROGS/lockcount" 3 2000
is_rc 0 "lockcount 3 x 2,000 (contended and not), records mode, format 1"
SPOOL_TRACE_FORMAT=2 spool_run decode --trace-out re2 ref
is_rc 0 "  written again in format 2"
num_cmp "$(nclass re2 lock_release)" -ge 1000 "  its plain releases are spool:lock_release"
same_reports ref re2 "format 2.3 against format 1"
if command -v babeltrace2 >/dev/null; then
	is "$(bt_count re2)" "$(bt_count ref)" "  babeltrace2 prints as many events"
else
	skip 1 "babeltrace2 is not installed"
fi

# condition waits: a release with an arg (full), waits between
SPOOL_RING_PACKETS=0 SPOOL_TRACE_FORMAT=1 spool_run locks -q -o cref -- "$PROGS/condvar" 3000
is_rc 0 "condvar 3,000, records mode, format 1"
SPOOL_TRACE_FORMAT=2 spool_run decode --trace-out cre2 cref
same_reports cref cre2 "condvar, format 2.3 against format 1"

# --- 2. the agent's packets ---
spool_run locks -q -o pk -- "$PROGS/bench_locks" own 2 20000
is_rc 0 "bench_locks own 2 20000, packets in the ring (the agent writes format 2.3)"
is "$(nclass pk lock_release)" 40000 "  its 40,000 releases are spool:lock_release"
SPOOL_TRACE_FORMAT=1 spool_run decode --trace-out pk1 pk
same_reports pk pk1 "written again in format 1"

done_testing
