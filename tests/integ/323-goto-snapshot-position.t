#!/bin/bash
# SPDX-License-Identifier: MIT
# 323-goto-snapshot-position.t - snapshots taken while one thread held the
# run token alone are all at one schedule event; each still has a position
# of its own (doc/record.md "Replay from a snapshot"): spool info lists them
# EVENT:COUNT (COUNT: the holder's progress count at the take) and spool
# replay --goto EVENT:COUNT starts from that one. Before, --goto EVENT
# reached only the latest of them. rr_solo: one thread, clock reads and naps
# between its lines, so the snapshots are due by time and taken at its
# passes through the scheduler's slow path.
. "$(dirname "$0")/lib.sh"

plan 11

snaps() {
	"$SPOOL" info "$1" 2>/dev/null | sed -n '/^snapshots:/,/^[a-z]/p' | grep -E '^ +[0-9]+ '
}

spool_run record --snap-period 200ms -o solo.trace -- "$PROGS/rr_solo" 20000 10
is_rc 0 "record of a thread alone, a snapshot every 200 ms, exits 0"
cp run.out rec.out
snaps solo.trace >rows
N=$(wc -l <rows)
num_cmp "$N" -ge 3 "... takes snapshots ($N)"
EVENTS=$(awk '{ split($2, p, ":"); print p[1] }' rows | sort -u | wc -l)
is "$EVENTS" 1 "... all at one schedule event"
POS=$(awk '{ print $2 }' rows)
is "$(sort -u <<<"$POS" | wc -l)" "$N" "spool info lists a distinct position for each ($(echo $POS))"
like "$(head -n 1 rows | awk '{ print $2 }')" '^[0-9]+:[0-9]+$' "... written EVENT:COUNT"

# --goto each position: that snapshot, the recording's tail; each later
# one prints less of it
good=0 prev=999999999 shorter=0 bad=""
while read -r idx pos _; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$pos" solo.trace >g.out 2>g.err
	rc=$?
	check_sanitizer g.err "spool replay --goto $pos"
	lines=$(wc -l <g.out)
	if [ "$rc" = 0 ] && suffix_ok rec.out g.out &&
		grep -Eq "^spool: started from snapshot $idx at schedule event $pos " g.err; then
		good=$((good + 1))
	else
		bad="$bad $pos(rc $rc)"
		diag "--goto $pos: rc $rc; $(head -3 g.err)"
	fi
	[ "$lines" -lt "$prev" ] && shorter=$((shorter + 1))
	prev=$lines
done <rows
is "$good" "$N" "--goto each position starts from its snapshot and prints the recording's tail${bad:+ (not:$bad)}"
is "$shorter" "$N" "... each later one a shorter tail"

# a count between two snapshots: the one before it
read -r i2 p2 _ < <(sed -n 2p rows)
read -r i1 p1 _ < <(sed -n 1p rows)
E=${p2%%:*} C=${p2##*:}
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E:$((C - 1))" solo.trace >b.out 2>b.err
rc=$?
check_sanitizer b.err "spool replay --goto $E:$((C - 1))"
ok "--goto $E:$((C - 1)), just before snapshot $i2, starts from snapshot $i1 ($p1)" \
	eval '[ "$rc" = 0 ] && grep -Eq "^spool: started from snapshot $i1 at schedule event $p1 " b.err && suffix_ok rec.out b.out' ||
	diag "$(head -3 b.err)"

# the event alone: the latest, as before
read -r il pl _ < <(tail -n 1 rows)
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E" solo.trace >l.out 2>l.err
rc=$?
ok "--goto $E (the event alone) starts from the latest there, snapshot $il" \
	eval '[ "$rc" = 0 ] && grep -Eq "^spool: started from snapshot $il at schedule event $pl " l.err' ||
	diag "$(head -3 l.err)"

# before the first: from the start, said
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E:0" solo.trace >z.out 2>z.err
rc=$?
ok "--goto $E:0, before every snapshot, replays from the start and says so" \
	eval '[ "$rc" = 0 ] && grep -q "no snapshot .* at or before that event" z.err && cmp -s rec.out z.out' ||
	diag "$(head -3 z.err)"

# not a position
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --goto "$E:x" solo.trace >/dev/null 2>x.err
is "$?" 2 "--goto $E:x is a usage error"
# (--gdbserver with EVENT:COUNT, refused before: tests/integ/356)

done_testing
