#!/bin/bash
# SPDX-License-Identifier: MIT
# 236-ring-packets-hostile.t - SPOOL_RING_PACKETS=1 with a program that
# writes over spool's shared memory (tests/progs/shm_scribble): the
# collector checks each packet's header (magic, sizes within the slot)
# before it copies it and stops reading a ring whose head or packet headers
# are out of bounds, counting its loss; bytes scribbled inside a packet's
# events are copied as they are and found by the readers, which say so
# (naming the stream file and offset) and exit 1. Nothing crashes or hangs:
# neither the run nor spool info, report or export on what it wrote.
. "$(dirname "$0")/lib.sh"

plan 17

P="$PROGS/shm_scribble"
T_TIMEOUT=60
export SPOOL_RING_PACKETS=1

# in LIST VALUE: VALUE is one of the words of LIST
in_list() { [[ " $1 " == *" $2 "* ]]; }

run_mode() {
	spool_run locks -q -o "$1.trace" -- "$P" "$1" "$2"
	if in_list "0 4" "$RC"; then
		pass "$1 $2: spool locks ends normally (status $RC)"
	else
		fail "$1 $2: spool locks ends normally (status $RC)"
		show_run
	fi
}
# readers DIR: spool info and report end with 0, 1 (a damaged stream,
# named) or 4 (incomplete), never a crash
readers() {
	spool_run info "$1"
	if in_list "0 1 4" "$RC"; then
		pass "  spool info reads it (status $RC)"
	else
		fail "  spool info reads it (status $RC)"
		show_run
	fi
	if [ "$RC" = 1 ]; then
		like "$ERR" "stream_[0-9]+ at offset [0-9]+" "  and names the damaged stream and offset"
	else
		pass "  (no damaged stream to name)"
	fi
	spool_run report --locks "$1"
	if in_list "0 1" "$RC"; then
		pass "  spool report --locks reads it (status $RC)"
	else
		fail "  spool report --locks reads it (status $RC)"
		show_run
	fi
}

run_mode heads 1
is_rc 4 "  heads and tails overwritten: the trace is incomplete"
like "$ERR" "damaged the shared memory of thread" "  spool names the damaged rings"
lost=$(trace_summary heads.trace lost_ring)
num_cmp "$lost" -gt 0 "  and counts their loss"
spool_run info heads.trace
like "$OUT" "lost: $lost events" "  spool info says the same loss"
readers heads.trace

run_mode records 1
readers records.trace
run_mode random 2
readers random.trace
spool_run export --perfetto -w random.pftrace random.trace
if in_list "0 1" "$RC"; then
	pass "spool export --perfetto on the scribbled trace ends normally (status $RC)"
else
	fail "spool export --perfetto on the scribbled trace ends normally (status $RC)"
	show_run
fi

done_testing
