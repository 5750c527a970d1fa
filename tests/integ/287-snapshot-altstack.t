#!/bin/bash
# SPDX-License-Identifier: MIT
# 287-snapshot-altstack.t - a thread with an alternate signal stack
# (sigaltstack) is snapshotted and restored with it (doc/trace-format.md,
# RR_SNAP_ALTSTACK): rr_altstack's workers each set their own, switch the run
# token in a loop, and at their end say whether it is still the one they set.
# spool replay --goto to each snapshot prints the recording's tail, "kept"
# included (before, a restored thread had none: "none").
. "$(dirname "$0")/lib.sh"

plan 5

P="$PROGS/rr_altstack"

spool_run record --snap-period 300 -o alt.trace -- "$P" 3 3000
is_rc 0 "record of 3 threads with alternate signal stacks exits 0"
cp run.out rec.out
is "$(grep -c ': alternate stack kept' rec.out)" 3 "each worker kept its alternate stack in the recording"
SNAPS=$("$SPOOL" info alt.trace | awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}')
NS=$(wc -w <<<"$SNAPS")
num_cmp "$NS" -ge 3 "snapshots were taken while the workers ran ($NS)"

good=0 tried=0 kept=0 bad=""
for E in $SNAPS; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E" alt.trace >replay.out 2>replay.err
	rc=$?
	check_sanitizer replay.err "spool replay --goto $E"
	tried=$((tried + 1))
	if [ "$rc" = 0 ] && suffix_ok rec.out replay.out &&
		grep -q "^spool: started from snapshot" replay.err; then
		good=$((good + 1))
	else
		bad="$bad $E(rc $rc)"
		diag "--goto $E: rc $rc; $(head -3 replay.err)" "$(grep alternate replay.out)"
	fi
	[ "$(grep -c ': alternate stack kept' replay.out)" = 3 ] && kept=$((kept + 1))
done
is "$good" "$tried" "--goto each of the $tried snapshots prints the recording's tail${bad:+ (not:$bad)}"
is "$kept" "$tried" "... in which every restored worker still has its alternate stack"

done_testing
