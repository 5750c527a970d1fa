#!/bin/bash
# SPDX-License-Identifier: MIT
# 297-forged-packets.t - a program that writes well-formed packets into its
# own ring (tests/progs/ring_forge: built with the agent's own producer
# code, so every packet passes the collector's format check). Before, a
# packet could move its thread's numbering 1000 ahead with nothing counted
# lost (the trace said "0 lost"), start its thread under another thread's
# tid, and record its process a second time; the collector wrote them as
# the program's events. Now each is a damaged ring: the run says so and
# exits 4, and its summary line, spool info, spool report and the JSON say
# the same number lost. A skip its ring's lost counter accounts for is
# counted lost (not damaged), and the program's output is never changed.
# The records mode (SPOOL_RING_PACKETS=0) last: the same forgeries as
# records (tests/progs/ring_forge writes them when the ring has no packets).
. "$(dirname "$0")/lib.sh"

P="$PROGS/ring_forge"
T_TIMEOUT=60
INCOMPLETE=4
plan 37

# run MODE: spool locks over the forger, trace in MODE.trace
run() {
	spool_run locks -q -o "$1.trace" -- "$P" "$1"
	cp run.err "$1.err"
}
# same_loss MODE N: spool info, spool report (text and JSON) say N lost
same_loss() {
	local m=$1 n=$2 txt js
	spool_run info "$m.trace"
	is "$RC $(sed -n 's/^lost: \([0-9]*\) events$/\1/p' run.out)" "$INCOMPLETE $n" \
		"  $m: spool info exits 4 and says $n lost"
	spool_run report --locks "$m.trace"
	txt=$(sed -n 's/^spool: [0-9,]* lock events, [0-9,]* thread events, \([0-9,]*\) lost.*/\1/p' run.out run.err | head -n 1)
	report_json "$m.trace"
	js=$(json report.json "'%d %d' % (d['trace']['lost'], d['trace']['incomplete'])")
	is "$txt; $js" "$n; $n 1" "  $m: spool report says $n lost, and its JSON $n, incomplete"
}

# The control: the forger's packets numbered as the agent numbers them.
run clean
is "$RC $OUT" "0 forged clean" "clean: the program's packets, well numbered: exit 0, its output"
is "$(summary_lost) $(trace_summary clean.trace damaged_rings)" "0 0" "  nothing lost, no damaged ring"
spool_run report --locks --json clean.trace
is "$(json run.out "len([t for t in d['threads'] if t['acquisitions'] == 4])")" 1 \
	"  the forged thread's events were taken (its 4 acquisitions)" ||
	diag "$(head -c 2000 run.out)"

# The numbering jumps 1000 ahead, its lost counter saying nothing dropped.
run jump
is "$RC $OUT" "$INCOMPLETE forged jump" "jump: exit 4, the program's output unchanged"
like "$ERR" "damaged the shared memory of thread [0-9]+ .*numbering skips events its thread did not count as lost" \
	"  spool names the damaged ring and why"
lost=$(summary_lost)
num_cmp "${lost:-0}" -gt 0 "  the run's line counts the loss ($lost)"
is "$(trace_summary jump.trace damaged_rings)" 1 "  the trace's run summary: 1 damaged ring"
same_loss jump "$lost"

# The same skip, counted by the ring's lost counter: believed as a loss.
run jumplost
is "$RC $OUT" "$INCOMPLETE forged jumplost" "jumplost: exit 4 (events lost), output unchanged"
unlike "$ERR" "damaged the shared memory" "  no ring called damaged"
is "$(summary_lost) $(trace_summary jumplost.trace damaged_rings)" "995 0" \
	"  the run's line counts the 995 skipped as lost"
same_loss jumplost 995

# A thread start naming the main thread's tid.
run tid
is "$RC $OUT" "$INCOMPLETE forged tid" "tid: exit 4, output unchanged"
like "$ERR" "damaged the shared memory.*a thread record names another thread" \
	"  the thread start naming another tid damages its ring"
lost=$(summary_lost)
num_cmp "${lost:-0}" -gt 0 "  counted lost ($lost)"
is "$(trace_summary tid.trace damaged_rings)" 1 "  1 damaged ring"
same_loss tid "$lost"
spool_run report --locks --json tid.trace
is "$(json run.out "len(d['threads']) - len(set(t['tid'] for t in d['threads']))")" 0 \
	"  no tid shows twice in the report"

# A second process record (the main thread's ring holds the first): the
# forger's ring is damaged (the agent names the ring of the process's own
# record: tests/integ/315), the process is recorded once.
run proc
is "$RC $OUT" "$INCOMPLETE forged proc" "proc: exit 4, output unchanged"
like "$ERR" "damaged the shared memory.*a process record repeats" \
	"  the second process record damages its ring"
lost=$(summary_lost)
num_cmp "${lost:-0}" -gt 0 "  counted lost ($lost)"
is "$(trace_summary proc.trace damaged_rings) $(trace_summary proc.trace processes)" "1 1" \
	"  1 damaged ring, 1 process"
same_loss proc "$lost"

# The records mode (SPOOL_RING_PACKETS=0): the forger writes records after
# its thread's own start, numbered on. Before, a second thread start
# naming the main thread and a second process record were written as the
# program's (exit 0, "0 lost"); now each damages its ring. A numbering
# jump is a gap there: counted lost, never hidden.
export SPOOL_RING_PACKETS=0
rrun() { spool_run locks -q -o "r$1.trace" -- "$P" "$1"; }
rrun clean
is "$RC $OUT" "0 forged clean" "records mode, clean: exit 0, the program's output"
is "$(summary_lost) $(trace_summary rclean.trace damaged_rings)" "0 0" "  nothing lost, no damaged ring"
rrun jump
is "$RC $OUT" "$INCOMPLETE forged jump" "records mode, jump: exit 4, output unchanged"
is "$(summary_lost)" 995 "  the 995 skipped counted lost"
rrun tid
is "$RC $OUT" "$INCOMPLETE forged tid" "records mode, tid: exit 4, output unchanged"
like "$ERR" "damaged the shared memory.*a thread record starts a thread in a ring its thread already had" \
	"  the second thread start damages its ring"
spool_run report --locks --json rtid.trace
is "$(json run.out "len(d['threads']) - len(set(t['tid'] for t in d['threads']))")" 0 \
	"  no tid shows twice in the report"
rrun proc
is "$RC $OUT" "$INCOMPLETE forged proc" "records mode, proc: exit 4, output unchanged"
like "$ERR" "damaged the shared memory.*a process record repeats" \
	"  the second process record damages its ring"
is "$(trace_summary rproc.trace damaged_rings) $(trace_summary rproc.trace processes)" "1 1" \
	"  1 damaged ring, 1 process"
unset SPOOL_RING_PACKETS

done_testing
