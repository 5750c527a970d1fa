#!/bin/bash
# SPDX-License-Identifier: MIT
# 286-snapshot-default-delta.t - snapshots by default (doc/record.md
# "Snapshots"): spool record in serial mode, with no --snap-period, takes one
# about every second of run time; the first is whole, the next ones are
# deltas (only the pages that changed since the one before), and spool info
# says which. spool replay --goto to each snapshot's event composes it from
# the whole one and the deltas and prints the tail of the recorded output,
# byte for byte. A delta whose base is gone is refused as damaged.
# --snap-period 0 takes none; the copies' page-hash files are not left in
# the trace.
. "$(dirname "$0")/lib.sh"

plan 16

P="$PROGS/rr_goto"

# a run of several seconds: rr_goto prints a line per event
spool_run record -o def.trace -- "$P" 4 200000
is_rc 0 "record in serial mode without --snap-period exits 0"
cp run.out rec.out
like "$ERR" '^spool: [0-9]+ snapshots? \(every 1 s of run time\)' \
	"the summary says snapshots were taken by time, one a second"
NS=$(ls def.trace/.spool/snap/ 2>/dev/null | grep -c '^snap_[0-9]*\.zst$')
num_cmp "$NS" -ge 3 "a run of several seconds has several snapshots ($NS)"
is "$(ls def.trace/.spool/snap/ | grep -c -v '\.zst$')" 0 \
	"the copies' page-hash files are not left in the trace"

"$SPOOL" info def.trace >info.out 2>info.err
is "$?" 0 "spool info lists the recording"
ROWS=$(sed -n '/^snapshots:/,/^[a-z]/p' info.out | grep -E '^ +[0-9]+ ')
is "$(awk 'NR==1{print $NF}' <<<"$ROWS")" whole "the first snapshot is whole"
ND=$(grep -c 'delta of' <<<"$ROWS")
num_cmp "$ND" -ge 2 "the next ones are deltas ($ND)"
# a delta holds the pages that changed: fewer bytes than the whole one
# (on disk: before compression a whole one leaves its zero pages out, a
# delta holds each page that changed, one that became zeros too, so a
# delta of a program that freed much can be the bigger there)
WHOLE=$(awk 'NR==1{print $5}' <<<"$ROWS")
BIG=$(grep 'delta of' <<<"$ROWS" | awk -v w="$WHOLE" '$5 >= w' | wc -l)
is "$BIG" 0 "each delta is smaller than the whole snapshot on disk ($WHOLE bytes)"

# --goto each snapshot's event: the tail of the recording
good=0 tried=0 comp=0 bad=""
for E in $(awk '{print $2}' <<<"$ROWS"); do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E" def.trace >replay.out 2>replay.err
	rc=$?
	check_sanitizer replay.err "spool replay --goto $E"
	tried=$((tried + 1))
	if [ "$rc" = 0 ] && suffix_ok rec.out replay.out &&
		grep -Eq "^spool: started from snapshot [0-9]+ at schedule event $E " replay.err; then
		good=$((good + 1))
	else
		bad="$bad $E(rc $rc)"
		diag "--goto $E: rc $rc; $(head -4 replay.err)"
	fi
	grep -Eq '^spool: snapshot [0-9]+ is a delta: composed over [0-9]+ earlier ones? in' replay.err &&
		comp=$((comp + 1))
done
is "$tried" "$NS" "replayed from each snapshot's event ($tried)"
is "$good" "$tried" "each starts from that snapshot and prints the tail of the recorded output${bad:+ (not:$bad)}"
is "$comp" "$ND" "... and says so when it composed a delta ($comp)"

# a delta whose base is missing: refused, not a wrong restore
cp -r def.trace cut.trace
E3=$(awk 'NR==3{print $2}' <<<"$ROWS")
rm -f cut.trace/.spool/snap/snap_2.zst
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E3" cut.trace >cut.out 2>cut.err
rc=$?
check_sanitizer cut.err "spool replay --goto $E3 (base gone)"
is "$rc" 1 "--goto a delta whose base is gone exits 1"
like "$(cat cut.err)" 'snap_3\.zst is damaged .*delta' "... saying the snapshot or one it is a delta of is damaged"

# --snap-period 0: none
spool_run record --snap-period 0 -o none.trace -- "$P" 2 2000
is_rc 0 "record --snap-period 0 exits 0"
unlike "$ERR" 'snapshot' "... says nothing of snapshots"
is "$(ls none.trace/.spool/snap/ 2>/dev/null | wc -l)" 0 "... and takes none"

done_testing
