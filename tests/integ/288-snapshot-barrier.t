#!/bin/bash
# SPDX-License-Identifier: MIT
# 288-snapshot-barrier.t - threads waiting at a pthread_barrier_wait across a
# snapshot (doc/trace-format.md, RR_SNAP_AGENT): serial mode emulates the
# barrier in the agent, whose globals in a replay restored from a snapshot
# are the fresh replay's, so the snapshot carries the barriers' counts and
# generations and a restore puts them back. rr_barrier's workers meet at a
# barrier round after round; spool replay --goto to each of several
# snapshots (some taken while workers waited there) prints the recording's
# tail and exits 0. Before, each restored replay stopped: "replay stuck".
. "$(dirname "$0")/lib.sh"

plan 4

P="$PROGS/rr_barrier"

spool_run record --snap-period 50 -o bar.trace -- "$P" 3 200
is_rc 0 "record of 3 threads meeting at a barrier 200 times exits 0"
cp run.out rec.out
SNAPS=$("$SPOOL" info bar.trace | awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' | head -8)
NS=$(wc -w <<<"$SNAPS")
num_cmp "$NS" -ge 4 "snapshots were taken between and during the rounds ($NS)"

good=0 tried=0 bad=""
for E in $SNAPS; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E" bar.trace >replay.out 2>replay.err
	rc=$?
	check_sanitizer replay.err "spool replay --goto $E"
	tried=$((tried + 1))
	if [ "$rc" = 0 ] && suffix_ok rec.out replay.out &&
		grep -q "^spool: started from snapshot" replay.err; then
		good=$((good + 1))
	else
		bad="$bad $E(rc $rc)"
		diag "--goto $E: rc $rc; $(grep -v '^spool: start' replay.err | head -2)"
	fi
done
is "$good" "$tried" "--goto each of $tried snapshots prints the recording's tail and exits 0${bad:+ (not:$bad)}"
ok "... down to its last line" grep -q '^done: counter 1200$' replay.out

done_testing
