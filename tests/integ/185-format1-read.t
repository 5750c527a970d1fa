#!/bin/bash
# SPDX-License-Identifier: MIT
# 185-format1-read.t - traces of format 1 are still read (doc/trace-format.md,
# "Versions"): SPOOL_TRACE_FORMAT=1 makes spool write format 1, as before
# format 2; every report, info, export and a replay read it; spool decode
# --trace-out writes the same events again in format 2, and the reports of
# both are the same, line for line (so both readers give every consumer the
# same events); babeltrace2 reads format 1 too.
. "$(dirname "$0")/lib.sh"

plan 20

export SPOOL_TRACE_FORMAT=1
spool_run locks -q --stacks 4 -o l1 -- "$PROGS/lockcount" 3 200
is_rc 0 "spool locks with SPOOL_TRACE_FORMAT=1"
like "$(cat l1/metadata)" "spool_format_version = 1;" "  writes a trace of format 1"
spool_run probe -q -o p1 -e 'func:probe_leaf_add' -e 'func:main' -- "$PROGS/probe_calls" 50
is_rc 0 "spool probe with SPOOL_TRACE_FORMAT=1"
printf 'first line of the input\nsecond line\n' >input.txt
spool_run record --mode sync -o r1 -- "$PROGS/rr_inputs" input.txt
is_rc 0 "spool record with SPOOL_TRACE_FORMAT=1"
cp run.out rec.out
unset SPOOL_TRACE_FORMAT

spool_run info l1
is_rc 0 "spool info reads the format 1 lock trace"
like "$OUT" "events: [0-9]+ \(lock [0-9]+," "  and counts its events"
n1=$(sed -nE 's/^events: ([0-9]+) .*/\1/p' <<<"$OUT")

spool_run decode --trace-out l2 l1
is_rc 0 "spool decode --trace-out writes it again"
like "$(cat l2/metadata)" "spool_format_version = 2;" "  in format 2"
spool_run info l2
like "$OUT" "^events: $n1 " "  with every event"
same_report() { # DESC DIR1 DIR2 ARGS...: the report of both, the directory names aside
	local desc=$1 a=$2 b=$3 rc1 rc2
	shift 3
	"$SPOOL" report "$@" "$a" >rep.1 2>&1
	rc1=$?
	"$SPOOL" report "$@" "$b" >rep.2 2>&1
	rc2=$?
	sed -i "s|$a|DIR|g" rep.1
	sed -i "s|$b|DIR|g" rep.2
	if [ "$rc1$rc2" = 00 ] && cmp -s rep.1 rep.2 && [ -s rep.1 ]; then
		pass "$desc"
	else
		fail "$desc"
		diag "$(diff rep.1 rep.2 | head -n 20)"
	fi
}
same_report "spool report --locks: the same for format 1 and format 2" l1 l2 --locks
same_report "  and --json" l1 l2 --locks --json

spool_run decode --trace-out p2 p1
is_rc 0 "the probe trace written again in format 2"
same_report "spool report --functions: the same for both" p1 p2 --functions
same_report "  and --json" p1 p2 --functions --json
spool_run export --chrome -w p1.json p1
spool_run export --chrome -w p2.json p2
is_rc 0 "spool export --chrome reads both"
is "$(sed 's/"[^"]*p[12]"//g' p1.json | md5sum)" "$(sed 's/"[^"]*p[12]"//g' p2.json | md5sum)" \
	"spool export: the same Chrome JSON from both"

printf 'CHANGED\n' >input.txt
spool_run replay r1
is_rc 0 "spool replay reads a recording of format 1"
like "$OUT" 'read 36 \[first line' "  and feeds back the recorded input, read from its stream files"
is "$(grep -E '^(monotonic|random)' run.out)" "$(grep -E '^(monotonic|random)' rec.out)" \
	"  clocks and random numbers as recorded"

if command -v babeltrace2 >/dev/null; then
	n=$(bt_count l1)
	is "$n" "$n1" "babeltrace2 reads the format 1 trace, every event"
else
	skip 1 "babeltrace2 is not installed"
fi

done_testing
