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
. "$(dirname "$0")/lib.sh"

need_gdb

plan 8

goto_recording
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
