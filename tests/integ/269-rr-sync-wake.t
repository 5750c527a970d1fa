#!/bin/bash
# SPDX-License-Identifier: MIT
# 269-rr-sync-wake.t - in sync mode a wake-up through a descriptor is an
# ordering edge (doc/record.md "Wake-ups through a descriptor"):
# tests/progs/rr_wake's 3 workers hand results to a loop as libuv does, an
# atomic store then a write to an eventfd, a pipe or a socket pair, and
# wait for the loop's answer on a pipe; the loop waits with epoll_wait or
# poll, reads the descriptor and takes the result with an atomic exchange.
# Only the descriptor's bytes order the store before the exchange. Each
# sync recording is replayed 3 times: every replay prints the recorded
# results and exits 0. Before, every replay took a result before its
# worker had stored it and stopped ("the same call on another descriptor
# number": the output's flush came at another point). Worker 0 and the
# loop use glibc's eventfd_write and eventfd_read, which call glibc's own
# write and read: the value read was not recorded at all. Serial mode
# replays the same program too (it did before).
. "$(dirname "$0")/lib.sh"

plan 6

P="$PROGS/rr_wake"

# rounds HOW [MODE]: 2 recordings of rr_wake HOW 150 (sync mode unless
# MODE), each replayed 3 times; sets SAME (replays identical to their
# recording) and REC (recordings made)
rounds() {
	local how=$1 mode=${2:-sync} r i
	SAME=0 REC=0
	for r in 1 2; do
		spool_run record -q --mode "$mode" -o "$how$r.trace" -- "$P" "$how" 150
		if [ "$RC" != 0 ] || ! grep -q '^sum ' run.out; then
			show_run
			continue
		fi
		REC=$((REC + 1))
		cp run.out rec.out
		for i in 1 2 3; do
			spool_run replay -q -o "rep$how$r.$i.trace" "$how$r.trace"
			if [ "$RC" = 0 ] && cmp -s rec.out run.out; then
				SAME=$((SAME + 1))
			else
				diag "$how: recording $r, replay $i: exit status $RC," \
					"$(grep -m 1 '^spool: error: ' run.err)" "$(diff rec.out run.out | head -n 4)"
			fi
		done
	done
}

rounds epoll
is "$REC" 2 "2 sync recordings of workers waking an epoll loop (eventfd, pipe, socket pair)"
is "$SAME" 6 "  6 replays of 6 print the recorded results and exit 0"
rounds poll
is "$REC" 2 "2 sync recordings of the same with a poll loop"
is "$SAME" 6 "  6 replays of 6 print the recorded results and exit 0"
rounds epoll serial
is "$REC" 2 "2 serial recordings of the epoll loop"
is "$SAME" 6 "  6 replays of 6 print the recorded results"
