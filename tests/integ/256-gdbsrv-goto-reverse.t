#!/bin/bash
# SPDX-License-Identifier: MIT
# 256-gdbsrv-goto-reverse.t - reverse execution in a session that starts
# from a recorded snapshot (spool replay --goto EVENT --gdbserver -,
# doc/record.md "Replay from a snapshot"): a watchpoint on the shared total,
# walked back write by write with reverse-continue, once with a checkpoint
# at every stop (copies of the restored process, gdbsrv_fork.c) and once
# without checkpoints (every replay a new restore): each stop is just
# before a write, where the program's counter and total are those of a line
# the recording printed, one event back each time; the two walks stop at
# the same points; the walk with checkpoints started replays from them.
# The session starts 11 events before a recorded snapshot (not at the
# middle plus a random 0 to 99): the breakpoint's last hits come at about
# the snapshot's turn, and going back jumps to the start of their turns.
# A snapshot is taken inside its turn, after the holder's write and
# breakpoint there; spool restored one at turn T to go to the start of T,
# and the walk skipped a write or failed ("the replay ended before the
# current point"): 1 run in 20 with the random EVENT (when it fell 10 to 12
# events before a snapshot), 5 in 6 with this one.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 9

goto_recording
# the snapshots' events (spool info's table), the one nearest the middle
# with one before it
SNAPS=$("$SPOOL" info rec 2>/dev/null | awk '/^  snap  *event/ {t = 1; next}
	t && $1 ~ /^[0-9]+$/ {print $2} t && $1 !~ /^[0-9]+$/ {t = 0}')
S=$(echo "$SNAPS" | awk -v mid=$((EVENTS / 2)) 'NR > 1 {d = $1 - mid; if (d < 0) d = -d
	if (best == "" || d < bd) {best = $1; bd = d}} END {print best}')
num_cmp "${S:-0}" -ge 20 "a snapshot after the first one to start before (${S:-none}; all: $(echo $SNAPS))"
E=$((${S:-20} - 11))
GDBSRV_OPTS="--goto $E "

# $1: the checkpoint setting, $2: the name of the walk
walk() {
	local args=(-ex "break rr_goto.c:$UNLOCK")
	for _ in $(seq 12); do args+=(-ex continue); done
	args+=(-ex 'printf "at ev=%ld tot=%ld\n", events, total' -ex delete -ex 'watch total')
	for _ in $(seq 6); do
		args+=(-ex reverse-continue -ex 'printf "back ev=%ld tot=%ld\n", events, total')
	done
	args+=(-ex 'monitor when' -ex kill)
	export $1
	gdbsrv "${args[@]}"
	unset "${1%%=*}"
	cp gdb.out "gdb.$2"
	grep '^back ev=' "gdb.$2" >"back.$2"
}
walk SPOOL_GDBSRV_CHECKPOINT_MS=0 ck
walk SPOOL_GDBSRV_CHECKPOINTS=0 none

is "$(wc -l <back.ck)" 6 "with checkpoints: 6 reverse-continues stop at a write of total"
AT=$(sed -n 's/^at ev=\([0-9]*\) .*/\1/p' gdb.ck)
FIRST=$(head -1 back.ck | sed 's/^back ev=\([0-9]*\) .*/\1/')
is "$FIRST" "$((AT - 1))" "  the first one: the write of the event before the breakpoint's"
# going back one event each time
steps=$(awk '{sub("ev=", "", $2); if (NR > 1 && $2 != prev - 1) bad = bad " " NR; prev = $2}
	     END {print bad}' back.ck)
is "$steps" "" "  one event back each time"
# before the write of event k+1, events and total are those of the
# recording's line for event k
miss=""
while read -r _ ev tot; do
	ev=${ev#ev=} tot=${tot#tot=}
	grep -qE "^event $ev thread [0-9]+ round [0-9]+ total $tot\$" rec.out || miss="$miss $ev/$tot"
done <back.ck
is "$miss" "" "  each stop: counter and total of a line the recording printed"
from=$(sed -n 's/.*from a checkpoint: \([0-9]*\).*/\1/p' gdb.ck)
num_cmp "${from:-0}" -ge 1 "  replays started from checkpoints (${from:-none})"
if cmp -s back.ck back.none; then
	pass "without checkpoints (every replay a new restore): the same stops"
else
	fail "without checkpoints (every replay a new restore): the same stops"
	diag "$(diff back.ck back.none)"
fi
like "$(grep 'replays started' gdb.none)" "replays started: [0-9]+, from a checkpoint: 0" \
	"  (replays started again, none from a checkpoint)"

done_testing
