#!/bin/bash
# SPDX-License-Identifier: MIT
# 234-ring-packets.t - SPOOL_RING_PACKETS=1: the agent writes finished
# format-2 packets into its rings and the collector copies them whole
# (doc/trace-format.md, "Packets in the ring"). The traces must be what the
# collector's own encoder writes: as small (a lock event at most 12 bytes, a
# probe or function event at most 8, counted by walking the stream files
# without spool's reader), read back whole by spool info and by babeltrace2,
# the run summary's counts equal to what the readers find, and the reports
# the same as from a trace of the records mode.
. "$(dirname "$0")/lib.sh"

plan 22

at_most() {
	if awk -v v="$2" -v l="$3" 'BEGIN { exit !(v != "" && v + 0 <= l + 0) }'; then
		pass "$1"
	else
		fail "$1"
		diag "want: $2 <= $3"
	fi
}
classes() { python3 "$REPO/bench/trace_classes.py" "$1"; }
per() { classes "$1" | awk '$1 == "total" { printf "%.2f", $3 / $2 }'; }
bt_all() {
	if command -v babeltrace2 >/dev/null; then
		is "$(bt_count "$1")" "$(trace_summary "$1" events)" "  babeltrace2 prints every event"
	else
		skip 1 "babeltrace2 is not installed"
	fi
}
info_all() { # DIR: spool info reads back the events and lock events the summary counts
	spool_run info "$1"
	is_rc 0 "  spool info: complete, nothing lost"
	like "$OUT" "events: $(trace_summary "$1" events) \(lock $(trace_summary "$1" lock_events)," \
		"  spool info reads back every event the run counted"
}

export SPOOL_RING_PACKETS=1

spool_run locks -q -o l.trace -- "$PROGS/bench_locks" own 2 20000
is_rc 0 "spool locks, 2 threads x 20,000 uncontended pairs, packets in the ring"
is "$(trace_summary l.trace lock_events):$(trace_summary l.trace thread_events)" 80004:10 \
	"  the summary counts every lock event (80,004) and the threads' 10 apart"
classes l.trace >l.classes
num_cmp "$(awk '$1 == "lock_op" || $1 == "lock_release" { n += $2 } END { print n }' l.classes)" \
	-ge 80000 "  80,000 spool:lock_op and spool:lock_release events and more"
at_most "  each lock_op at most 12 bytes" "$(awk '$1 == "lock_op" { print $4 }' l.classes)" 12
# format 2.3: every release is spool:lock_release, 8 bytes naming its lock
# (an uncontended pair is 19 bytes)
is "$(awk '$1 == "lock_release" { print $2 }' l.classes)" 40000 \
	"  the 40,000 releases are spool:lock_release"
at_most "  each at most 8 bytes" "$(awk '$1 == "lock_release" { print $4 }' l.classes)" 8
at_most "  the whole trace at most 10 bytes a record" "$(per l.trace)" 10
info_all l.trace
bt_all l.trace

# the same program, both modes: the same lock table
spool_run locks -q -o r.trace -- "$PROGS/lockcount" 3 3000
is_rc 0 "lockcount 3 x 3,000 in packet mode"
report_json r.trace
is "$(lock_stat report.json shared_lock "$F_ACQ")" 9000 "  spool report: 9,000 acquisitions of shared_lock"
SPOOL_RING_PACKETS=0 spool_run locks -q -o r0.trace -- "$PROGS/lockcount" 3 3000
report_json r0.trace
is "$(lock_stat report.json shared_lock "$F_ACQ")" 9000 "  as in records mode"

spool_run probe -q -o p.trace -e 'func:probe_leaf_add' -- "$PROGS/probe_calls" 2000
is_rc 0 "spool probe -e func:probe_leaf_add, packets in the ring"
classes p.trace >p.classes
at_most "  an entry at most 8 bytes" "$(awk '$1 == "probe_entry" { print $4 }' p.classes)" 8
info_all p.trace
bt_all p.trace
spool_run report --functions p.trace
like "$OUT" "probe_leaf_add +4000 " "  spool report --functions: 4,000 calls"

spool_run path -q -t f.trace -- "$PROGS/path_prodcons-finst"
is_rc 0 "spool path on a program built with -finstrument-functions, packets in the ring"
at_most "  entries and exits at most 8 bytes" \
	"$(classes f.trace | awk '$1 == "func_entry" || $1 == "func_exit" { b += $3; n += $2 } END { if (n) print b / n }')" 8
spool_run path f.trace
is_rc 0 "  spool path reads the trace back"

done_testing
