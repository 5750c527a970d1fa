#!/bin/bash
# SPDX-License-Identifier: MIT
# 184-format2-sizes.t - format 2's events are as small as the format says
# (doc/trace-format.md, "Version 2: compact events"), counted by walking the
# stream files independently of spool's reader (bench/trace_classes.py): a
# lock or unlock at most 12 bytes, a function entry or exit and a probe
# entry or exit at most 8, headers and site definitions included over a
# whole run; spool reads back every event the run counted, and babeltrace2
# prints each of them.
. "$(dirname "$0")/lib.sh"

plan 19

# at_most DESC VALUE LIMIT: VALUE (a decimal) is at most LIMIT
at_most() {
	if awk -v v="$2" -v l="$3" 'BEGIN { exit !(v != "" && v + 0 <= l + 0) }'; then
		pass "$1"
	else
		fail "$1"
		diag "want: $2 <= $3"
	fi
}
classes() { python3 "$REPO/bench/trace_classes.py" "$1"; }
# per DIR: total bytes of the streams / records (site definitions are not)
per() { classes "$1" | awk '$1 == "total" { printf "%.2f", $3 / $2 }'; }
bt_all() { # DIR: babeltrace2 prints as many records as the run summary counts
	if command -v babeltrace2 >/dev/null; then
		is "$(bt_count "$1")" "$(trace_summary "$1" events)" "  babeltrace2 prints every event"
	else
		skip 1 "babeltrace2 is not installed"
	fi
}

spool_run locks -q -o l.trace -- "$PROGS/bench_locks" own 2 20000
is_rc 0 "2 threads x 20,000 uncontended lock/unlock pairs under spool locks"
classes l.trace >l.classes
num_cmp "$(awk '$1 == "lock_op" || $1 == "lock_release" { n += $2 } END { print n }' l.classes)" \
	-ge 80000 "  80,000 spool:lock_op and spool:lock_release events and more"
at_most "  each lock_op at most 12 bytes" "$(awk '$1 == "lock_op" { print $4 }' l.classes)" 12
# format 2.3: every release is spool:lock_release, 8 bytes, which names its
# lock (format 2.2's, class 18, was 6 bytes but implied it, and babeltrace2
# could not show it): an uncontended pair is 19 bytes
is "$(awk '$1 == "lock_release" { print $2 }' l.classes)" 40000 \
	"  the 40,000 releases are spool:lock_release"
at_most "  each at most 8 bytes" "$(awk '$1 == "lock_release" { print $4 }' l.classes)" 8
is "$(awk '$1 == "lock_release_prev" { print $2 }' l.classes)" "" "  none is format 2.2's class 18"
at_most "  the whole trace at most 10 bytes a record" "$(per l.trace)" 10
spool_run info l.trace
like "$OUT" "events: $(trace_summary l.trace events) \(lock $(trace_summary l.trace lock_events)," \
	"spool info reads every event back"
bt_all l.trace

spool_run probe -q -o p.trace -e 'func:probe_leaf_add' -- "$PROGS/probe_calls" 2000
is_rc 0 "spool probe -e func:probe_leaf_add"
classes p.trace >p.classes
num_cmp "$(awk '$1 == "probe_entry" || $1 == "probe_exit" { n += $2 } END { print n + 0 }' p.classes)" \
	-ge 7000 "  most probe events are short (spool:probe_entry, spool:probe_exit)"
at_most "  an entry at most 8 bytes" "$(awk '$1 == "probe_entry" { print $4 }' p.classes)" 8
at_most "  the whole trace about 8 bytes a record" "$(per p.trace)" 8.5
bt_all p.trace

spool_run path -q -t f.trace -- "$PROGS/path_prodcons-finst"
is_rc 0 "spool path on a program built with -finstrument-functions"
classes f.trace >f.classes
num_cmp "$(awk '$1 == "func_entry" { print $2 }' f.classes)" -gt 0 "  spool:func_entry events"
at_most "  entries and exits at most 8 bytes" \
	"$(awk '$1 == "func_entry" || $1 == "func_exit" { b += $3; n += $2 } END { if (n) print b / n }' f.classes)" 8
spool_run path f.trace
is_rc 0 "spool path reads the trace back"
bt_all f.trace

done_testing
