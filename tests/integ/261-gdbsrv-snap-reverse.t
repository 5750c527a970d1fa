#!/bin/bash
# SPDX-License-Identifier: MIT
# 261-gdbsrv-snap-reverse.t - going back in a `spool replay --gdbserver`
# session that starts at the beginning, on a recording with snapshots
# (doc/record.md "Reverse execution: --gdbserver", "From the recording's
# snapshots"): gdb runs to the program's last printf, watches the shared
# total and goes back write by write with reverse-continue. spool starts
# those replays from the recorded snapshots before the stops (a restore run
# to the start of a turn) and says so; the stops are the same as without
# snapshots (SPOOL_GDBSRV_SNAPSHOTS=0): the same counter and total, each
# those of a line the recording printed, one event back each time, in the
# same threads (gdb's thread numbers, and the thread that wrote). The
# recording has two waves of threads, so the snapshots near the end hold
# fewer threads than were created (the restored ones are numbered as
# created).
. "$(dirname "$0")/lib.sh"

need_gdb

plan 9

BIN="$PROGS/rr_goto"
SRC="$REPO/tests/progs/rr_goto.c"
LAST=$(grep -n 'printf("done events' "$SRC" | head -1 | cut -d: -f1)
GDBSRV_BIN="$BIN"

spool_run record --chaos --snap-period 150 -o rec -- "$BIN" 4 300 waves=2
is_rc 0 "record --snap-period 150, two waves of 4 threads"
cp run.out rec.out
NSNAP=$(ls rec/.spool/snap 2>/dev/null | grep -c '^snap_')
num_cmp "$NSNAP" -ge 3 "  the recording has snapshots ($NSNAP)"

# $1: the snapshot setting, $2: the name of the walk
walk() {
	local args=(-ex "break rr_goto.c:$LAST" -ex continue
		    -ex 'printf "at ev=%ld tot=%ld\n", events, total' -ex 'watch total')
	for _ in $(seq 5); do
		args+=(-ex reverse-continue -ex 'printf "back ev=%ld tot=%ld\n", events, total'
		       -ex 'thread')
	done
	args+=(-ex 'monitor when' -ex kill)
	export SPOOL_GDBSRV_SNAPSHOTS=$1
	gdbsrv "${args[@]}"
	unset SPOOL_GDBSRV_SNAPSHOTS
	cp gdb.out "gdb.$2"
	# each stop: the values, the thread that wrote, the current thread
	grep -E '^back ev=|^Thread [0-9]+ hit Hardware watchpoint|^\[Current thread is' "gdb.$2" |
		sed 's/ (Thread [0-9]*)//' >"back.$2"
	grep '^back ev=' "gdb.$2" >"vals.$2"
}
walk 1 snap
walk 0 none

is "$(wc -l <vals.snap)" 5 "with snapshots: 5 reverse-continues stop at a write of total"
AT=$(sed -n 's/^at ev=\([0-9]*\) .*/\1/p' gdb.snap)
steps=$(awk -v at="$AT" '{sub("ev=", "", $2); if ($2 != at - NR) bad = bad " " NR} END {print bad}' \
	vals.snap)
is "$steps" "" "  one event back each time from the end ($AT)"
miss=""
while read -r _ ev tot; do
	ev=${ev#ev=} tot=${tot#tot=}
	grep -qE "^event $ev thread [0-9]+ round [0-9]+ total $tot\$" rec.out || miss="$miss $ev/$tot"
done <vals.snap
is "$miss" "" "  each stop: counter and total of a line the recording printed"
like "$(cat gdb.snap)" "spool: gdbserver: going back from the recording's snapshots" \
	"  spool says it went back from the recording's snapshots"
from=$(sed -n 's/.*from a recorded snapshot: \([0-9]*\).*/\1/p' gdb.snap)
num_cmp "${from:-0}" -ge 1 "  replays restored from a snapshot (${from:-none})"
if cmp -s back.snap back.none; then
	pass "without snapshots: the same stops, values and threads"
else
	fail "without snapshots: the same stops, values and threads"
	diag "$(diff back.snap back.none)"
	diag "gdb without snapshots (status $GRC), its end:" "$(tail -n 25 gdb.none)"
fi
like "$(grep 'replays started' gdb.none)" "from a recorded snapshot: 0," \
	"  (none restored from a snapshot then)"

done_testing
