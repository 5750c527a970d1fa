#!/bin/bash
# SPDX-License-Identifier: MIT
# 174-slow-turn.t - a sync replay's stuck watch (--stuck-ms) tells a slow
# replay from a stuck one: main waits on a condition variable while the
# worker computes for 300 rounds, each ending with a lock of its own mutex
# (tests/progs/rr_slowturn.c). The replay's main waits for its turn longer
# than --stuck-ms in all, but the worker replays events all along, and
# each one starts the clock again. (On 2 CPUs shared with other programs,
# xz -T2's main waited more than 5 s that way and the replay stopped with
# "replay stuck ... thread 1 has replayed 194 of its 253 events".) A thread
# that gets nowhere is still reported after --stuck-ms: tests/integ/132.
. "$(dirname "$0")/lib.sh"

plan 6

P="$PROGS/rr_slowturn"

spool_run record -q --mode sync -o s.trace -- "$P" 300 3000
is_rc 0 "sync record: the program's status"
cp run.out rec.out
like "$OUT" '^result [0-9]+ after 300 rounds$' "the recorded run printed its result"
"$SPOOL" replay --dump-schedule s.trace >dump.txt 2>/dev/null
like "$(cat dump.txt)" 'thread 1 event 301 ' "the worker's 300 locks and its last one are recorded"

# A round computes about 3 ms on this machine: 300 of them take longer
# than the 1000 ms allowed without progress, one of them does not.
spool_run replay -q --stuck-ms 1000 s.trace
is_rc 0 "a replay whose main waits longer than --stuck-ms for a worker that gets somewhere"
ok "the replay prints the recorded result" cmp -s run.out rec.out
unlike "$ERR" 'replay stuck' "no stuck report"
done_testing
