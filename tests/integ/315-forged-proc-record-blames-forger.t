#!/bin/bash
# SPDX-License-Identifier: MIT
# 315-forged-proc-record-blames-forger.t - a thread of the program writes a
# second process record into its own ring (tests/progs/ring_forge proc); the
# agent wrote the process's own into the main thread's ring. Two process
# records of one process meet: the collector refused the second to arrive,
# and that was the main thread's ring (the forger's packet is closed and
# taken first): the main thread's events were counted lost and the ring
# called damaged, the forger's packets written as the program's (20 of 20
# runs). Now the agent names, in the process's slot, the ring it writes the
# process record into, before it writes it, and the collector takes a
# process record from that ring only: the forger's ring is the damaged one,
# whichever is drained first, and the main thread's events are kept. Each of
# RUNS runs checks it.
. "$(dirname "$0")/lib.sh"

P="$PROGS/ring_forge"
RUNS=${SPOOL_315_RUNS:-5}
plan $((1 + 4 * RUNS))

spool_run locks -q -o c.trace -- "$P" clean
is "$RC $OUT" "0 forged clean" "the control: the forger's packets, well numbered: exit 0"

for r in $(seq 1 "$RUNS"); do
	rm -rf p.trace
	spool_run locks -q -o p.trace -- "$P" proc
	is "$RC $OUT" "4 forged proc" "run $r: exit 4 (a damaged ring), the program's output unchanged"
	who=$(sed -n 's/.*damaged the shared memory of thread \([0-9]*\) (pid \([0-9]*\), ring [0-9]*): a process record repeats.*/\1 \2/p' run.err | head -n 1)
	set -- $who
	ok "  the damaged ring is the forger's (thread ${1:-?}), not the main thread's (pid ${2:-?})" \
		test $# = 2 -a "${1:-}" != "${2:-}" || diag "$(cat run.err)"
	is "$(trace_summary p.trace damaged_rings) $(trace_summary p.trace processes)" "1 1" \
		"  1 damaged ring, the process recorded once"
	report_json p.trace
	is "$(json report.json "[t['acquisitions'] for t in d['threads'] if t['tid'] == t['pid']]")" 1 \
		"  the main thread's own acquisition is kept"
done

done_testing
