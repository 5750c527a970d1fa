#!/bin/bash
# SPDX-License-Identifier: MIT
# 149-snapshot-image.t - the snapshots of a recording in the trace
# (doc/record.md "Snapshots", doc/trace-format.md "Snapshots"): with
# --snap-period each snapshot's copy writes TRACE/.spool/snap/snap_<N>.zst (a
# 128-byte header, then one zstd frame with a checksum) while the program
# runs on; spool info lists them (event, time, size); the program's heap is
# in them; a damaged file is named as such and an unfinished one counted;
# the recording replays as without snapshots; without --snap-period there
# are none.
. "$(dirname "$0")/lib.sh"

plan 14

P="$PROGS/rr_snap"

spool_run record --chaos --snap-period 100 -o img.trace -- "$P" 3 2000 3
is_rc 0 "record --snap-period 100 of a program with a 3 MB heap exits 0"
cp run.out img.out
N=$(sed -nE 's/^spool: ([0-9]+) snapshots? \(every 100 switches\).*/\1/p' run.err)
num_cmp "${N:-0}" -ge 3 "snapshots are taken (${N:-none})"
is "$(ls img.trace/.spool/snap/ 2>/dev/null | grep -c '^snap_[0-9]*\.zst$')" "${N:-x}" \
	"each one is a file in TRACE/.spool/snap/"
unlike "$ERR" 'could not be written' "no copy failed to write its image"

spool_run info img.trace
is_rc 0 "spool info on the trace exits 0"
like "$OUT" "snapshots: $N in img.trace/.spool/snap" "spool info counts them"
ROWS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' run.out)
is "$(echo "$ROWS" | grep -c .)" "$N" "... and lists one line each"
is "$(echo "$ROWS" | sort -n | tr '\n' ' ')" "$(echo "$ROWS" | tr '\n' ' ')" \
	"... in the order of their schedule events"

F=img.trace/.spool/snap/snap_1.zst
is "$(head -c 8 "$F")" "SPSNAP01" "a snapshot file starts with its header's magic"
if command -v zstd >/dev/null 2>&1; then
	tail -c +129 "$F" | zstd -dc >body.bin 2>/dev/null
	ok "its body is one whole zstd frame (checksum checked)" [ "$?" = 0 ] && [ -s body.bin ]
	ok "the program's heap is in it" grep -q SPOOL-SNAP-HEAP-MARKER body.bin
else
	skip "zstd is not installed" 2
fi

# damage: a header overwritten, a copy that never finished
printf 'XXXXXXXX' | dd of=img.trace/.spool/snap/snap_2.zst conv=notrunc status=none
: >img.trace/.spool/snap/snap_99.tmp
spool_run info img.trace
like "$OUT" '^ +2 +- +- .*damaged' "spool info names a damaged snapshot"
like "$OUT" 'snapshots unfinished .*: 1' "... and counts an unfinished one"

# (without --snap-period, serial mode takes one a second: tests/integ/286)
spool_run record --snap-period 0 -o none.trace -- "$P" 2 100
ok "with --snap-period 0 there are no snapshots" [ ! -e none.trace/.spool/snap ]

done_testing
