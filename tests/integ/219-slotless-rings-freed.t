#!/bin/bash
# SPDX-License-Identifier: MIT
# 219-slotless-rings-freed.t - a process that found no process slot (more
# processes alive at once than --max-procs) never had its rings freed: its
# last thread's ring stayed taken after it exited, so a program forking
# children one after another ran out of rings after --max-threads of them
# and every later child's events were lost ("N no free ring"). Its rings
# are now freed once its threads are gone (the collector asks the kernel;
# a child that finds none free waits for that), so only the missing maps
# and command lines of those processes are reported.
. "$(dirname "$0")/lib.sh"

plan 8

N=60
# The parent holds the one slot; each child, alone with it, has none.
spool_run locks -q --max-procs 1 --max-threads 8 -- "$PROGS/forkmany" seq $N
is_rc 4 "forkmany seq $N with --max-procs 1 exits 4 (processes without a slot)"
is "$OUT" "children=$N" "  the program ran to the end"
is "$(summary_lost)" 0 "  no event lost: the rings of children that ended were given back"
is "$(trace_summary spool.trace lost_no_ring)" 0 "  the run summary: none found no free ring"
is "$(trace_summary spool.trace lost_no_proc)" $N "  it counts the $N processes without a slot"
like "$ERR" "$N processes found no process slot" "  and says so"
unlike "$ERR" "no free ring" "  with no word of a missing ring"
report_json spool.trace
is "$(lock_stat report.json '*' "$F_ACQ")" $N \
	"  the lock: once in each child (unnamed: their maps are missing)"
done_testing
