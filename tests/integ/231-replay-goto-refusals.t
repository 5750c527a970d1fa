#!/bin/bash
# SPDX-License-Identifier: MIT
# 231-replay-goto-refusals.t - spool replay --goto refuses, with a message
# that says why and exit status 1, before the program runs: a damaged
# snapshot (its compressed data changed: the checksum fails), a short one
# (cut), a snapshot of another build of the program, one holding a
# writable MAP_SHARED mapping it cannot hold, an EVENT past the end of the
# recording, a sync-mode recording; and a number that is not one (usage).
# The recording itself still replays (doc/record.md "Replay from a
# snapshot").
. "$(dirname "$0")/lib.sh"

plan 16

P="$PROGS/rr_goto"

spool_run record --chaos --snap-period 150 -o r.trace -- "$P" 3 200
is_rc 0 "record --snap-period 150 exits 0"
cp run.out rec.out
F=r.trace/.spool/snap/snap_2.zst
ok "it has a second snapshot" [ -f "$F" ]
EV=$(od -An -t u8 -j 24 -N 8 "$F" | tr -d ' ')
cp "$F" snap2.keep

# a byte of the compressed data changed
SIZE=$(stat -c %s "$F")
printf '\x5a' | dd of="$F" bs=1 seek=$((SIZE / 2)) conv=notrunc status=none
cmp -s "$F" snap2.keep && printf '\xa5' | dd of="$F" bs=1 seek=$((SIZE / 2)) conv=notrunc status=none
spool_run replay --goto "$((EV + 5))" r.trace
is_rc 1 "a damaged snapshot: exit 1"
like "$ERR" "snap_2.zst is damaged .*check" "... saying the file is damaged"
is "$(wc -c <run.out)" 0 "... and the program did not run"

# cut short
head -c $((SIZE * 2 / 3)) snap2.keep >"$F"
spool_run replay --goto "$((EV + 5))" r.trace
is_rc 1 "a short snapshot: exit 1"
like "$ERR" "snap_2.zst is damaged .*cut short" "... saying it is damaged"
cp snap2.keep "$F"

# a snapshot of another program (another build id) under this one's name
# (taken between this recording's first and second snapshots: the one
# --goto its event starts from)
spool_run record --chaos --snap-period 100 -o other.trace -- "$PROGS/rr_snap" 3 2000
cp other.trace/.spool/snap/snap_2.zst "$F"
OT=$(od -An -t u8 -j 24 -N 8 "$F" | tr -d ' ')
spool_run replay --goto "$OT" r.trace
is_rc 1 "a snapshot of another build of the program: exit 1"
like "$ERR" "snap_2.zst was taken of another build of the program" "... saying so"
cp snap2.keep "$F"

# the recording replays from the snapshot again once it is whole
spool_run replay --goto "$((EV + 5))" r.trace
is_rc 0 "the snapshot put back: --goto exits 0"

# past the end
spool_run replay --goto 999999999 r.trace
is_rc 1 "--goto past the end of the recording: exit 1"
like "$ERR" "beyond the end of the recording, whose schedule events are 0 to [0-9]+" \
	"... saying where the recording ends"

# a writable MAP_SHARED mapping
spool_run record --chaos --snap-period 150 -o shared.trace -- "$P" 3 200 shared
spool_run replay --goto 400 shared.trace
is_rc 1 "a snapshot holding a writable MAP_SHARED mapping: exit 1"
like "$ERR" "holds a writable MAP_SHARED mapping .* refusing" "... saying why"

# sync mode has no snapshots
spool_run record --mode sync -o sync.trace -- "$P" 2 20
spool_run replay --goto 5 sync.trace
like "$ERR" "sync-mode recording, which has no snapshots" "--goto on a sync recording is refused"

spool_run replay --goto many r.trace
is_rc 2 "--goto with no number: usage error"

done_testing
