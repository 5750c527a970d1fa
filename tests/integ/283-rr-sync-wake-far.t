#!/bin/bash
# SPDX-License-Identifier: MIT
# 283-rr-sync-wake-far.t - a wake-up from a thread numbered 128 or more is
# an ordering edge in sync mode (doc/record.md "Wake-ups through a
# descriptor", RR_CALL_WAKE_MORE): tests/progs/rr_wake_edge far makes and
# joins 130 threads, then its worker (thread 131 or so) stores a result
# and writes to a pipe the loop polls, while another thread writes to
# /dev/null 300 times a round. Before, the worker was left out of the
# loop's WAKE records: only the process's count of writes was waited for,
# which the other thread's writes made up in a replay, and the loop
# printed 0 for results (exit 0, no word from spool). Serial mode replays
# the same program too.
. "$(dirname "$0")/lib.sh"

plan 4

P="$PROGS/rr_wake_edge"

for mode in sync serial; do
	rec=0 same=0
	for r in 1 2; do
		spool_run record -q --mode "$mode" -o "$mode$r.trace" -- "$P" far 60
		if [ "$RC" != 0 ] || ! grep -q '^sum 6001770$' run.out; then
			show_run
			continue
		fi
		rec=$((rec + 1))
		cp run.out rec.out
		for i in 1 2; do
			spool_run replay -q -o "rep$mode$r.$i.trace" "$mode$r.trace"
			if [ "$RC" = 0 ] && cmp -s rec.out run.out; then
				same=$((same + 1))
			else
				diag "$mode: recording $r, replay $i: exit status $RC," \
					"$(grep -m 1 '^spool: error: ' run.err)" "$(diff rec.out run.out | head -n 4)"
			fi
		done
	done
	is "$rec" 2 "$mode: 2 recordings of a worker numbered over 128 waking a poll loop"
	is "$same" 4 "  4 replays of 4 print the recorded results and exit 0"
done
