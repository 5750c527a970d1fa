#!/bin/bash
# SPDX-License-Identifier: MIT
# 357-snapshot-budget.t - the snapshots' disk budget (spool record
# --snap-max, doc/record.md "Snapshots"): ffmpeg at --snap-period 1 wrote
# 2.4 GB of snapshots with no bound. With a small budget the snapshots stop
# once the next would pass it: the summary says so, spool info says the
# same, the images on disk stay within it, and spool replay --goto replays
# the tail from the last one kept. Without the budget (0) the same program
# takes more; by default the budget is 1 GiB or half the free space.
. "$(dirname "$0")/lib.sh"

plan 14

P="$PROGS/rr_goto"
BUDGET=1000 # KiB: rr_goto's images are some 350 KB each, so 2 at most fit

spool_run record --chaos --snap-period 150 --snap-max ${BUDGET}k -o b.trace -- "$P" 4 300
is_rc 0 "record --snap-max ${BUDGET}k exits 0 (the recording is valid)"
cp run.out rec.out
cp run.err rec.err
KEPT=$(ls b.trace/.spool/snap/ 2>/dev/null | grep -c '^snap_[0-9]*\.zst$')
TAKEN=$(sed -nE 's/^spool: ([0-9]+) snapshots? \(every.*/\1/p' rec.err)
like "$(cat rec.err)" "snapshots stopped at $KEPT: their budget of $BUDGET KiB is used \\(--snap-max\\)" \
	"the summary says the budget stopped them at the $KEPT kept"
num_cmp "$KEPT" -ge 1 "... some were kept ($KEPT)"
BYTES=$(cat b.trace/.spool/snap/snap_*.zst 2>/dev/null | wc -c)
num_cmp "$BYTES" -le $((BUDGET * 1024)) "the images on disk are within the budget ($BYTES bytes)"
unlike "$(ls b.trace/.spool/snap/)" '\.tmp$' "... and no unfinished image is left"

spool_run info b.trace
like "$OUT" "snapshots stopped at $KEPT: their budget of $BUDGET KiB is used \\(--snap-max\\)" \
	"spool info says the same"
like "$OUT" "snapshots: $KEPT in " "... and lists the $KEPT kept"

# the last one kept still serves --goto
LAST=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' \
	<("$SPOOL" info b.trace) | tail -1)
spool_run replay --goto "${LAST:-0}" b.trace
is_rc 0 "--goto the last snapshot kept (event ${LAST:-none}) exits 0"
like "$ERR" "started from snapshot [0-9]+ at schedule event $LAST" "... from that snapshot"
ok "... and prints the recording's tail, byte for byte" tail_ok rec.out run.out

# no limit: the same program takes more than were kept
spool_run record --chaos --snap-period 150 --snap-max 0 -o n.trace -- "$P" 4 300
ALL=$(ls n.trace/.spool/snap/ 2>/dev/null | grep -c '^snap_[0-9]*\.zst$')
num_cmp "$ALL" -gt "$KEPT" "--snap-max 0: no limit, more are kept ($ALL; ${TAKEN:-?} taken with the budget)"
unlike "$ERR" "snapshots stopped" "... and none stopped"

# the default: 1 GiB or half the free space, whichever is smaller
spool_run record --chaos --snap-period 50 -o d.trace -- "$P" 2 100
spool_run info d.trace
like "$OUT" "snapshot budget: [0-9.]+ (bytes|KiB|MiB|GiB), [0-9.]+ (bytes|KiB|MiB) used \\(--snap-max\\)" \
	"by default a budget is set, and spool info shows it"
FREE=$(($(stat -f -c '%a * %S' d.trace) / 2))
B=$(sed -nE 's/^snap_budget=([0-9]+)$/\1/p' d.trace/.spool/record)
if [ "$FREE" -ge $((1100 << 20)) ]; then
	is "${B:-none}" 1073741824 "... 1 GiB (half the free space is $FREE bytes)"
else
	# half the free space at the start: the disk moved a little since
	num_cmp "$(( ${B:-0} > FREE ? ${B:-0} - FREE : FREE - ${B:-0} ))" -le $((FREE / 10 + (64 << 20))) \
		"... half the free space at the start (${B:-none}; half of it now: $FREE)"
fi

done_testing
