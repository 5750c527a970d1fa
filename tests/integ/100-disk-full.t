#!/bin/bash
# SPDX-License-Identifier: MIT
# 100-disk-full.t - a full disk is never "0 lost". On a 2 MiB tmpfs, a run
# that writes more than fits used to say "N lock events, 0 lost" and exit 0
# while most events never reached the disk. Now the events that did not fit
# are counted, the summary line and the exit status (4: the trace is
# incomplete) say so, and spool info and spool report show the same number;
# a recording that lost events is refused by spool replay with that reason.
# On a disk that is already full, spool refuses to start the program.
. "$(dirname "$0")/lib.sh"

plan 17

MNT="$T_DIR/small"
mkdir -p "$MNT"
if ! mount -t tmpfs -o size=2m tmpfs "$MNT" 2>mount.err; then
	skip 17 "cannot mount a 2 MiB tmpfs here: $(head -n 1 mount.err)"
	done_testing
fi
trap 'cd /; umount "$MNT" 2>/dev/null; _t_cleanup' EXIT

# 120,000 lock events of 41 bytes: about 5 MB, more than twice what fits.
spool_run locks -q -o "$MNT/t.trace" -- "$PROGS/flood" 60000
is_rc 4 "locks on a disk that fills up exits 4 (trace incomplete)"
is "$OUT" "pairs=60000" "  the program ran to the end"
lost=$(summary_lost)
num_cmp "$lost" -gt 0 "  the summary line counts the events that did not reach the disk"
like "$ERR" "incomplete: [0-9]+ events lost \([^)]*not written to the disk" \
	"  and says they were not written to the disk"
num_cmp "$(add "$(summary_events)" "$lost")" -ge 120000 \
	"  events on the disk + lost account for every acquire and release"
spool_run info "$MNT/t.trace"
is_rc 4 "spool info on that trace exits 4"
like "$OUT" "^lost: $lost events" "  and says the same number lost as the run"
like "$OUT" "^writer: finished" "  the writer finished (it could still say so)"
report_json "$MNT/t.trace"
is "$(json report.json "d['$J_TOTALS']['lost']")" "$lost" "spool report --locks says the same number lost"

rm -rf "$MNT/t.trace"
spool_run record --mode sync -o "$MNT/r.trace" -- "$PROGS/flood" 60000
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

done_testing
