#!/bin/bash
# SPDX-License-Identifier: MIT
# 303-snapshot-delta-chain.t - spool replay --goto to a snapshot at the end
# of a chain of deltas (doc/record.md "Replay from a snapshot"): spool
# composes the whole image in one pass, each page from the newest file of
# the chain that holds it, and the replay from there prints the recording's
# tail byte for byte (rr_goto's output depends on its heap list and its
# totals: a page from an older file of the chain shows). Also a snapshot in
# the middle of the chain, and a chain with a middle delta gone: refused as
# damaged, not restored with the older pages.
. "$(dirname "$0")/lib.sh"

plan 9

P="$PROGS/rr_goto"

# depth of each snapshot's chain from spool info's rows: "snap event ... whole"
# or "... delta of N (pages changed since)"; prints "snap event depth"
chains() {
	awk '{ if ($9 == "whole") d[$1] = 0; else if ($9 == "delta" && ($11 in d)) d[$1] = d[$11] + 1; else d[$1] = -1
	       print $1, $2, d[$1] }' "$1"
}

# a recording whose longest chain is 3 deltas or more (the copy of the one
# before must have finished: under load some are whole), 3 tries at most
best=-1
for try in 1 2 3; do
	rm -rf try.trace
	spool_run record --snap-period 250ms -o try.trace -- "$P" 4 150000
	[ "$RC" = 0 ] || continue
	"$SPOOL" info try.trace 2>/dev/null | sed -n '/^snapshots:/,/^[a-z]/p' |
		grep -E '^ +[0-9]+ ' >try.rows
	d=$(chains try.rows | sort -k3,3n | tail -n 1 | awk '{ print $3 }')
	if [ -n "$d" ] && [ "$d" -gt "$best" ]; then
		best=$d
		rm -rf ch.trace
		mv try.trace ch.trace
		cp run.out rec.out
		cp try.rows rows
	fi
	[ "$best" -ge 3 ] && break
done
if [ "$best" -lt 3 ]; then
	skip 9 "no recording with a chain of 3 deltas in 3 tries (longest $best: the copies did not finish in time under this load)"
	done_testing
fi
pass "a recording with a chain of $best deltas"

read -r S E D < <(chains rows | sort -k3,3n | tail -n 1)
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E" ch.trace >end.out 2>end.err
rc=$?
check_sanitizer end.err "spool replay --goto $E"
is "$rc" 0 "--goto $E (snapshot $S, $D deltas over a whole one) exits 0"
like "$(cat end.err)" "snapshot $S is a delta: composed over $D earlier ones? in" \
	"... spool says it composed snapshot $S over the $D files under it"
like "$(cat end.err)" "started from snapshot $S at schedule event $E " "... and started from it"
suffix_ok rec.out end.out
is "$?" 0 "... printing the recording's tail byte for byte"

# the middle of the chain
read -r MS ME MD < <(chains rows | awk -v d="$D" -v s="$S" '$3 == int((d + 1) / 2) && $1 < s' | tail -n 1)
if [ -n "$MS" ]; then
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$ME" ch.trace >mid.out 2>mid.err
	rc=$?
	check_sanitizer mid.err "spool replay --goto $ME"
	mid_ok() { [ "$rc" = 0 ] && grep -q "composed over $MD earlier" mid.err && suffix_ok rec.out mid.out; }
	ok "--goto $ME (snapshot $MS, $MD deltas deep) prints the recording's tail" mid_ok
else
	skip 1 "no snapshot in the middle of the chain"
fi

# a middle delta of the chain gone: the newest one cannot be composed
cp -r ch.trace cut.trace
GONE=$((S - 1))
rm -f "cut.trace/.spool/snap/snap_$GONE.zst"
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E" cut.trace >cut.out 2>cut.err
rc=$?
check_sanitizer cut.err "spool replay --goto $E (snap_$GONE gone)"
is "$rc" 1 "--goto $E with snapshot $GONE of its chain gone exits 1"
like "$(cat cut.err)" "snap_$S\\.zst is damaged .*delta" \
	"... saying snapshot $S or one it is a delta of is damaged"
is "$(wc -c <cut.out)" 0 "... and the program does not run"

done_testing
