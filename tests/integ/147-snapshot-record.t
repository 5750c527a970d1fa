#!/bin/bash
# SPDX-License-Identifier: MIT
# 147-snapshot-record.t - snapshots do not change a recording (doc/record.md,
# "Snapshots"): with a snapshot due at every third switch, a lock-heavy
# program (rr_bank, chaos) and one whose threads block in pipes, sleeps and
# pthread_once (rr_block) record, and their replays print the recording's
# output. A thread blocked in the kernel is not parked: the snapshot waits
# for a switch where every thread is, and the summary counts the delays.
. "$(dirname "$0")/lib.sh"

plan 8

snap_n() { sed -nE 's/^spool: ([0-9]+) snapshots? \(every 3 switches\).*/\1/p' run.err; }

spool_run record --chaos --snap-period 3 -o bank.trace -- "$PROGS/rr_bank" 4 2000
is_rc 0 "rr_bank: record --chaos --snap-period 3 exits 0"
cp run.out bank.out
N=$(snap_n)
SW=$(sed -nE 's/.* ([0-9,]+) schedule events \(switches\).*/\1/p' run.err | tr -d ,)
# (a chaos run may switch only a few times: then few snapshots are due)
if [ "${SW:-0}" -ge 30 ]; then
	num_cmp "${N:-0}" -ge 1 "rr_bank: snapshots are taken (${N:-none} in $SW switches)"
else
	skip "rr_bank: this chaos run switched $SW times only" 1
fi
spool_run replay -o bank.rep bank.trace
is_rc 0 "rr_bank: the recording replays"
if cmp -s bank.out run.out; then pass "rr_bank: the replay prints the recording's output"
else fail "rr_bank: the replay prints the recording's output"; show_run; fi

spool_run record --snap-period 3 -o block.trace -- "$PROGS/rr_block"
is_rc 0 "rr_block: record --snap-period 3 exits 0"
cp run.out block.out
like "$ERR" '[0-9]+ snapshots? \(every 3 switches\).*[0-9]+ due when a thread was not parked' \
	"rr_block: the summary says how many were taken and how many waited"
spool_run replay -o block.rep block.trace
is_rc 0 "rr_block: the recording replays"
if cmp -s block.out run.out; then pass "rr_block: the replay prints the recording's output"
else fail "rr_block: the replay prints the recording's output"; show_run; fi

done_testing
