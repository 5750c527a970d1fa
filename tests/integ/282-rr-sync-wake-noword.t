#!/bin/bash
# SPDX-License-Identifier: MIT
# 282-rr-sync-wake-noword.t - in sync mode a wake-up that comes from no
# write is an ordering edge too (doc/record.md "Wake-ups through a
# descriptor"): tests/progs/rr_wake_edge's worker stores a result with an
# atomic store, then makes the loop's descriptor ready by closing its end
# of a pipe, shutting its end of a socket pair down, connecting to the
# loop's listening socket, or arming the loop's timerfd; the loop polls,
# consumes the readiness (a read of 0, an accept, the timer's count) and
# takes the result with an atomic exchange. Each sync recording is
# replayed: every replay prints the recorded results and exits 0. Before,
# close, shutdown, connect and timerfd_settime were not counted as
# writes: the loop's replayed poll returned at once and it printed 0 for
# results (exit 0, no word from spool).
. "$(dirname "$0")/lib.sh"

MODES="close shutdown connect timer"
plan 8

P="$PROGS/rr_wake_edge"

for m in $MODES; do
	rec=0 same=0
	for r in 1 2; do
		spool_run record -q --mode sync -o "$m$r.trace" -- "$P" "$m" 60
		if [ "$RC" != 0 ] || ! grep -q '^sum 6001770$' run.out; then
			show_run
			continue
		fi
		rec=$((rec + 1))
		cp run.out rec.out
		for i in 1 2; do
			spool_run replay -q -o "rep$m$r.$i.trace" "$m$r.trace"
			if [ "$RC" = 0 ] && cmp -s rec.out run.out; then
				same=$((same + 1))
			else
				diag "$m: recording $r, replay $i: exit status $RC," \
					"$(grep -m 1 '^spool: error: ' run.err)" "$(diff rec.out run.out | head -n 4)"
			fi
		done
	done
	is "$rec" 2 "$m: 2 sync recordings print every result the worker stored"
	is "$same" 4 "  4 replays of 4 print the recorded results and exit 0"
done
