#!/bin/bash
# SPDX-License-Identifier: MIT
# 230-replay-goto.t - replay from a recorded snapshot (doc/record.md "Replay
# from a snapshot"): spool replay --goto EVENT restores the latest snapshot
# taken at or before EVENT into a fresh process of the program and replays
# the rest of the log; what the program prints from there is the tail of
# the recorded output, byte for byte. A multithreaded program that prints
# one line per event (rr_goto: a mutex, a heap list, sched_yield), recorded
# with chaos, replayed from several events picked at random strides; the
# same in waves of threads created and joined (snapshots with threads
# parked at their first wait and in pthread_join, threads created after the
# restore); and rr_snap (condition variables, joins, stdio from every
# thread). The
# replay says which snapshot it started from; with no snapshot before EVENT
# it replays from the start and says so.
. "$(dirname "$0")/lib.sh"

plan 14

P="$PROGS/rr_goto"

# the tail of the recording's output the replay printed: tail_ok (lib.sh)
# when replay.out is a non-empty proper suffix of rec.out

spool_run record --chaos --snap-period 150 -o goto.trace -- "$P" 4 300
is_rc 0 "record --snap-period 150 of a 4-thread program exits 0"
cp run.out rec.out
EVENTS=$(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1)
num_cmp "${EVENTS:-0}" -ge 900 "the recording has many schedule events (${EVENTS:-none})"
NS=$(ls goto.trace/.spool/snap/ 2>/dev/null | grep -c '^snap_[0-9]*\.zst$')
num_cmp "$NS" -ge 4 "it has snapshots ($NS)"

# events at a random stride past the first snapshot, each replayed from
# its snapshot to the end
STRIDE=$((120 + RANDOM % 200))
E=$((160 + RANDOM % 100))
good=0 tried=0 said=0 bad=""
while [ "$E" -lt "$((EVENTS - 20))" ]; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E" goto.trace >replay.out 2>replay.err
	rc=$?
	check_sanitizer replay.err "spool replay --goto $E"
	tried=$((tried + 1))
	if [ "$rc" = 0 ] && tail_ok rec.out replay.out; then
		good=$((good + 1))
	else
		bad="$bad $E(rc $rc)"
		diag "--goto $E: rc $rc; $(head -3 replay.err)"
	fi
	grep -Eq '^spool: started from snapshot [0-9]+ at schedule event [0-9]+' replay.err &&
		said=$((said + 1))
	E=$((E + STRIDE))
done
num_cmp "$tried" -ge 3 "replayed from $tried events (stride $STRIDE)"
is "$good" "$tried" "each prints the tail of the recorded output, byte for byte, and exits 0${bad:+ (not:$bad)}"
is "$said" "$tried" "... and says which snapshot it started from"

# the snapshot at or before EVENT: the output starts later the later EVENT is
LAST=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' \
	<("$SPOOL" info goto.trace) | tail -1)
spool_run replay --goto "$LAST" goto.trace
is_rc 0 "--goto the last snapshot's event ($LAST) exits 0"
# (a snapshot that caught a thread taking the run token back after a
# blocking call was skipped for the one before until tests/integ/271)
like "$ERR" "started from snapshot $NS at schedule event $LAST" "... from that very snapshot"
num_cmp "$(wc -l <run.out)" -lt "$(wc -l <rec.out)" "... and prints only the recording's last lines"
ok "... which are the recording's tail" tail_ok rec.out run.out

# before the first snapshot: from the start
spool_run replay --goto 3 goto.trace
like "$ERR" 'no snapshot .* at or before that event can be restored: replaying from the start' \
	"--goto before the first snapshot replays from the start and says so"
ok "... with the whole recorded output" cmp -s rec.out run.out

# another program: condition variables, joins, stdio from every thread
spool_run record --chaos --snap-period 100 -o snap.trace -- "$PROGS/rr_snap" 3 2000
cp run.out snap.out
spool_run replay --goto 450 snap.trace
ok "rr_snap replayed from the snapshot before event 450 prints the recorded tail" \
	[ "$RC" = 0 ] && tail_ok snap.out run.out

# waves of threads: every snapshot
spool_run record --chaos --snap-period 37 -o waves.trace -- "$P" 3 20 waves=12
cp run.out waves.out
SNAPS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' \
	<("$SPOOL" info waves.trace))
good=0 tried=0 bad=""
for E in $SNAPS; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$((E + 1))" waves.trace >replay.out 2>replay.err
	rc=$?
	check_sanitizer replay.err "spool replay --goto $((E + 1))"
	tried=$((tried + 1))
	if [ "$rc" = 0 ] && tail_ok waves.out replay.out; then
		good=$((good + 1))
	else
		bad="$bad $E(rc $rc)"
		diag "--goto $((E + 1)): rc $rc; $(head -3 replay.err)"
	fi
done
ok "threads created and joined in waves: each of the $tried snapshots restores and prints the recorded tail${bad:+ (not:$bad)}" \
	[ "$tried" -ge 5 ] && [ "$good" = "$tried" ]

done_testing
