#!/bin/bash
# SPDX-License-Identifier: MIT
# 100-disk-full.t - a full disk is never "0 lost". On a 2 MiB tmpfs, a run
# that writes more than fits used to say "N lock events, 0 lost" and exit 0
# while most events never reached the disk. Now the events that did not fit
# are counted, the summary line and the exit status (4: the trace is
# incomplete) say so, and spool info and spool report show the same number;
# a recording that lost events is refused by spool replay with that reason.
# On a disk that is already full, spool refuses to start the program. On
# one out of inodes, a thread whose stream file cannot be created has its
# events counted as lost (they used to stop the collector for every ring).
. "$(dirname "$0")/lib.sh"

plan 21

MNT="$T_DIR/small"
mkdir -p "$MNT"
if ! mount -t tmpfs -o size=2m tmpfs "$MNT" 2>mount.err; then
	skip 21 "cannot mount a 2 MiB tmpfs here: $(head -n 1 mount.err)"
	# No inode left for a thread's stream file: that thread's events are
# counted as lost, the other threads' go on. (How many inodes the trace
# takes before that stream depends on its other files: try a few limits.)
found=0
for n in 6 7 8 9 10 11 12; do
	mount -t tmpfs -o size=2m,nr_inodes=$n tmpfs "$INO" || break
	spool_run locks -q -o "$INO/t.trace" -- "$PROGS/lockcount" 3 1000
	if grep -q "cannot create trace stream" run.err; then
		found=1
		break
	fi
	umount "$INO"
done
if [ "$found" = 1 ]; then
	is_rc 4 "a thread whose stream cannot be created: exit 4"
	is "$OUT" "total=3000" "  the program ran to the end"
	lost=$(summary_lost)
	num_cmp "$lost" -gt 0 "  its events are counted as lost"
	spool_run info "$INO/t.trace"
	like "$OUT" "^lost: $lost events" "  and spool info says the same number"
	umount "$INO"
else
	fail "a tmpfs short of inodes made a stream impossible to create"
	skip 3 "no such run"
fi

done_testing
fi
INO="$T_DIR/inodes"
mkdir -p "$INO"
trap 'cd /; umount "$MNT" 2>/dev/null; umount "$INO" 2>/dev/null; _t_cleanup' EXIT

# 600,000 lock events of 11 bytes (trace format 2): about 6.6 MB, more than
# three times what fits.
spool_run locks -q -o "$MNT/t.trace" -- "$PROGS/flood" 300000
is_rc 4 "locks on a disk that fills up exits 4 (trace incomplete)"
is "$OUT" "pairs=300000" "  the program ran to the end"
lost=$(summary_lost)
num_cmp "$lost" -gt 0 "  the summary line counts the events that did not reach the disk"
like "$ERR" "incomplete: [0-9]+ events lost \([^)]*not written to the disk" \
	"  and says they were not written to the disk"
num_cmp "$(add "$(summary_events)" "$lost")" -ge 600000 \
	"  events on the disk + lost account for every acquire and release"
spool_run info "$MNT/t.trace"
is_rc 4 "spool info on that trace exits 4"
like "$OUT" "^lost: $lost events" "  and says the same number lost as the run"
like "$OUT" "^writer: finished" "  the writer finished (it could still say so)"
report_json "$MNT/t.trace"
is "$(json report.json "d['$J_TOTALS']['lost']")" "$lost" "spool report --locks says the same number lost"

rm -rf "$MNT/t.trace"
spool_run record --mode sync -o "$MNT/r.trace" -- "$PROGS/flood" 300000
is_rc 4 "record on a disk that fills up exits 4"
like "$ERR" "incomplete: [0-9]+ events lost" "  and says events were lost"
spool_run replay "$MNT/r.trace"
is_rc 4 "spool replay refuses the incomplete recording with 4"
like "$ERR" "incomplete" "  saying it is incomplete"
unlike "$ERR" "not made by spool record" "  not that it is not a recording"

# A disk that is already full: nothing can be traced, so nothing is run.
rm -rf "$MNT/r.trace"
dd if=/dev/zero of="$MNT/fill" bs=4k >/dev/null 2>&1
spool_run locks -q -o "$MNT/f.trace" -- "$PROGS/flood" 100
is_rc 1 "locks on a full disk exits 1"
is "$OUT" "" "  without running the program"
like "$ERR" "No space left on device" "  and says why"

# No inode left for a thread's stream file: that thread's events are
# counted as lost, the other threads' go on. (How many inodes the trace
# takes before that stream depends on its other files: try a few limits.)
found=0
for n in 6 7 8 9 10 11 12; do
	mount -t tmpfs -o size=2m,nr_inodes=$n tmpfs "$INO" || break
	spool_run locks -q -o "$INO/t.trace" -- "$PROGS/lockcount" 3 1000
	if grep -q "cannot create trace stream" run.err; then
		found=1
		break
	fi
	umount "$INO"
done
if [ "$found" = 1 ]; then
	is_rc 4 "a thread whose stream cannot be created: exit 4"
	is "$OUT" "total=3000" "  the program ran to the end"
	lost=$(summary_lost)
	num_cmp "$lost" -gt 0 "  its events are counted as lost"
	spool_run info "$INO/t.trace"
	like "$OUT" "^lost: $lost events" "  and spool info says the same number"
	umount "$INO"
else
	fail "a tmpfs short of inodes made a stream impossible to create"
	skip 3 "no such run"
fi

done_testing
