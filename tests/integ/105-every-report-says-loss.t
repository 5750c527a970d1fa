#!/bin/bash
# SPDX-License-Identifier: MIT
# 105-every-report-says-loss.t - `spool report --functions`, --coverage,
# --vars and --sys, `spool path` and `spool export` of a trace that had lost
# events printed a report (and JSON) with no word of it: only `report
# --locks` and `spool info` said "N lost". Every report now has the same
# loss block: in JSON a "trace" object {"lost", "incomplete",
# "writer_finished", "missing"}, in text "spool: N events lost, trace in
# DIR/" and "missing: <the words of spool info>"; exports carry it too.
#
# Three traces: a probe trace with every probe kind whose state file is
# crafted to say its writer did not finish with 782 events lost; a real
# `spool path --max-threads 1` run (threads without a ring: function
# probes, locks, a path); a real `spool locks --ring-size 4k --on-full
# drop` run (the exports).
. "$(dirname "$0")/lib.sh"

CALLS="$PROGS/probe_calls"
if [ ! -x "$CALLS" ] || [ ! -x "$PROGS/flood" ] || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP test programs or python3 missing"
	exit 0
fi
plan 34

KINDS="functions coverage vars sys locks"
# loss_of FILE: "lost incomplete writer_finished" of a JSON report's "trace"
loss_of() { json "$1" "'%d %d %d' % (d['trace']['lost'], d['trace']['incomplete'], d['trace']['writer_finished'])"; }

# --- a probe trace with every report kind ----------------------------------
spool_run probe -q -e 'func:probe_*' -e 'block:probe_fib' -e 'time:probe_leaf_add' \
	-e sys:cpu -- "$CALLS" 200
is_rc 0 "spool probe with function, block, time and sys probes"
all=""
for k in $KINDS; do
	spool_run report --$k --json spool.trace
	cp run.out $k.json
	all="$all$k $(loss_of $k.json);"
done
is "$all" "$(for k in $KINDS; do printf '%s 0 0 1;' $k; done)" \
	"every report's JSON says nothing lost, complete, writer finished"

# The same trace, its state file saying what a killed writer leaves: still
# "writing", 777 events dropped by full rings and 5 of a thread without one.
cp -a spool.trace crafted
python3 -c '
import sys
s = ("format=spool-state-1\nstate=writing\nring_full=777\nno_ring=5\nseq_gaps=0\n"
     "damaged_rings=0\nrejected=0\nlost_write=0\nside_files=0\n")
open(sys.argv[1], "w").write(s.ljust(4096, "\n"))' crafted/.spool/state
WHY='782 events lost \(777 rings full or gaps, 5 no free ring\); its writer did not finish'

spool_run info crafted
is_rc 4 "spool info of the crafted trace exits 4 (incomplete)"
like "$OUT" "^lost: 782 events" "  and says 782 lost"
for k in $KINDS; do
	spool_run report --$k --json crafted
	cp run.out c-$k.json
	is "$(loss_of c-$k.json) $(json c-$k.json "d['trace']['missing']" | grep -Ec "^$WHY")" \
		"782 1 0 1" "report --$k --json: lost 782, incomplete, writer not finished, and why"
done
for k in $KINDS; do
	spool_run report --$k crafted
	if [ $k = locks ]; then head="^spool: [0-9,]+ lock events, [0-9,]+ thread events, 782 lost, trace in crafted/$"; else
		head="^spool: 782 events lost, trace in crafted/$"; fi
	ok "report --$k (text) says 782 lost and why, on stdout" \
		sh -c 'grep -Eq "$1" run.out && grep -Eq "^missing: $2" run.out' - "$head" "$WHY"
done

spool_run path --json crafted
cp run.out path.json
is "$(loss_of path.json)" "782 1 0" "spool path --json says 782 lost"
spool_run path crafted
like "$OUT" "^# spool: 782 events lost, trace in crafted/" "spool path (text) says it, as a comment"
like "$OUT" "^# missing: $WHY" "  and why"
spool_run path --check --json crafted
cp run.out check.json
is "$(loss_of check.json)" "782 1 0" "spool path --check --json says 782 lost"

spool_run export --chrome -w c.json crafted
is_rc 0 "spool export --chrome of the crafted trace"
is "$(loss_of c.json)" "782 1 0" "  its top-level \"trace\" says 782 lost"
is "$(json c.json "[e['name'] for e in d['traceEvents'] if e.get('s') == 'g'][0]" | grep -Ec "^trace incomplete: $WHY")" \
	1 "  and a global instant says why on the timeline"
spool_run export --perfetto -w p.pftrace crafted
is_rc 0 "spool export --perfetto of the crafted trace"
PROTO_DIR="$REPO/tests/data/perfetto"
if command -v protoc >/dev/null && [ -f "$PROTO_DIR/trace.proto" ]; then
	protoc -I"$PROTO_DIR" --decode=perfetto.protos.Trace trace.proto <p.pftrace >pf.txt 2>pf.err
	ok "  an instant on a track \"spool\" has lost = 782 and says why" \
		sh -c 'grep -q "name: \"spool\"" pf.txt && grep -B1 "name: \"lost\"" pf.txt |
			grep -q "uint_value: 782" && grep -Eq "name: \"trace incomplete: $1" pf.txt' - "$WHY"
else
	skip 1 "protoc or tests/data/perfetto/trace.proto missing"
fi
spool_run export --flamegraph -w f.svg crafted
like "$(cat f.svg)" "<text [^>]*>trace incomplete: $WHY" "spool export --flamegraph says it under the graph"
spool_run export --chrome -w full.json spool.trace
is "$(loss_of full.json) $(json full.json "len([e for e in d['traceEvents'] if e.get('s') == 'g'])")" \
	"0 0 1 0" "the complete trace's export says 0 lost, without an instant"

# --- real losses: threads that found no ring -------------------------------
spool_run path --max-threads 1 -t pt -w path.txt -- "$CALLS" 300
is_rc 4 "spool path --max-threads 1 of two threads exits 4"
lost=$(sed -nE 's/^spool: [0-9]+ events, ([0-9]+) lost, trace in pt\/$/\1/p' run.err)
num_cmp "${lost:-x}" -gt 0 "  its summary counts the events of the thread without a ring"
like "$(cat path.txt)" "^# spool: $lost events lost, trace in pt/" "  the path says the same number"
spool_run report --functions --json pt
cp run.out f.json
spool_run report --locks --json pt
cp run.out l.json
spool_run export --chrome -w pt.json pt
is "$(loss_of f.json) $(loss_of l.json) $(loss_of pt.json)" "$lost 1 1 $lost 1 1 $lost 1 1" \
	"  report --functions, --locks and the export say the same number"
spool_run report --functions pt
like "$OUT" "^spool: $lost events lost, trace in pt/" "  and the text report --functions"
spool_run info pt
like "$OUT" "^lost: $lost events" "  and spool info"

# --- real losses: full rings dropping events -------------------------------
# (a loaded machine can slow the program enough for the collector to keep
# up with 50,000 pairs: more pairs until some are dropped, never a time)
for pairs in 50000 500000 5000000; do
	spool_run locks -q --ring-size 4k --on-full drop -- "$PROGS/flood" $pairs
	lost=$(summary_lost)
	[ "${lost:-0}" -gt 0 ] && break
done
num_cmp "${lost:-x}" -gt 0 "a 4k ring with --on-full drop loses events"
spool_run export --chrome -w drop.json spool.trace
spool_run export --perfetto -w drop.pftrace spool.trace
is "$(loss_of drop.json)" "$lost 1 1" "  export --chrome says the same number"
if command -v protoc >/dev/null && [ -f "$PROTO_DIR/trace.proto" ]; then
	protoc -I"$PROTO_DIR" --decode=perfetto.protos.Trace trace.proto <drop.pftrace >pf2.txt 2>pf.err
	is "$(grep -B1 'name: "lost"' pf2.txt | sed -n 's/.*uint_value: //p')" "$lost" \
		"  and export --perfetto"
else
	skip 1 "protoc or tests/data/perfetto/trace.proto missing"
fi

done_testing
