#!/bin/bash
# SPDX-License-Identifier: MIT
# 301-rr-sync-wake-signals.t - in sync mode the wake-ups that come from an
# fclose, a signal another thread sends, or a timer another thread arms
# are ordering edges too (doc/record.md "Wake-ups through a descriptor",
# "Signals order threads in sync mode"): tests/progs/rr_wake_edge's worker stores
# a result with an atomic store, then fcloses a FILE on its end of the
# loop's pipe (the loop polls and reads 0), sends SIGUSR1 to the process
# (the loop polls a signalfd and reads it), arms a 1 ms setitimer or
# ualarm (the loop takes SIGALRM with sigwait), or arms a 1 ms POSIX timer whose
# SIGUSR2 the loop reads from a signalfd; the loop then takes the result
# with an atomic exchange. Each sync recording is replayed: every replay
# prints the recorded results and exits 0. Before, with spool's previous
# agent: the fclose mode printed 0 for one result in each of 4 replays,
# the four others 0 for (nearly) all 60 (exit 0, no word from spool).
. "$(dirname "$0")/lib.sh"

MODES="fclose signalfd itimer ualarm ptimer"
plan 10

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
