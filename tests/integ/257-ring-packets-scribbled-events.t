#!/bin/bash
# SPDX-License-Identifier: MIT
# 257-ring-packets-scribbled-events.t - SPOOL_RING_PACKETS=1 with a program
# that writes bytes inside the events of the packets in its rings
# (tests/progs/shm_scribble records, random): the collector walks each
# packet's events before it copies it (trace_pkt2_check), so the run itself
# says the program damaged its shared memory, exits 4 and counts the loss,
# and what it wrote reads in spool info without a damaged stream. Before,
# the scribbled packets were copied as they were: the run exited 0 saying
# nothing was lost, and only the readers named a damaged stream (exit 1).
. "$(dirname "$0")/lib.sh"

plan 15

P="$PROGS/shm_scribble"
T_TIMEOUT=60
INCOMPLETE=4
export SPOOL_RING_PACKETS=1

spool_run locks -q -o rec.trace -- "$P" records 1
is_rc "$INCOMPLETE" "records: bytes written inside the rings' packets: the run says it is incomplete"
like "$ERR" "damaged the shared memory of thread" "  spool names the damaged rings"
num_cmp "$(summary_lost)" -gt 0 "  and counts what they lost"
num_cmp "$(trace_summary rec.trace damaged_rings)" -gt 0 "  the trace's run summary says so too"
spool_run info rec.trace
is_rc "$INCOMPLETE" "  spool info reads the trace: incomplete, no damaged stream"
unlike "$ERR" "stream_[0-9]+ at offset" "  (no stream named as damaged)"

# Random bytes anywhere, at random moments: the run ends with 0, or 4 when
# it found damage; whatever it wrote reads without a damaged stream.
for seed in 1 2 3; do
	spool_run locks -q -o "r$seed.trace" -- "$P" random "$seed"
	if [ "$RC" = 0 ] || [ "$RC" = "$INCOMPLETE" ]; then
		pass "random $seed: the run ends normally (status $RC)"
	else
		fail "random $seed: the run ends normally (status $RC)"
		show_run
	fi
	spool_run info "r$seed.trace"
	if [ "$RC" = 0 ] || [ "$RC" = "$INCOMPLETE" ]; then
		pass "  spool info reads it (status $RC)"
	else
		fail "  spool info reads it (status $RC)"
		show_run
	fi
	unlike "$ERR" "stream_[0-9]+ at offset" "  no stream is named as damaged"
done

done_testing
