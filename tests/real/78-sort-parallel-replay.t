#!/bin/bash
# SPDX-License-Identifier: MIT
# 78-sort-parallel-replay.t - Debian's sort --parallel=2 on 300,000 lines.
# Serial mode: recorded, then replayed three times, each exits 0 with the
# sorted output. Sync mode cannot replay it exactly, and this checks that
# it never replays it wrong: coreutils' parallel merge is racy (a thread
# merging a node writes how far its output reaches, *node->dest, into the
# parent node while it holds only its own node's lock; the thread merging
# the parent reads that bound under the parent's lock), so how many lines
# each merge step takes depends on timing, and so do the lock calls that
# follow. A sync replay (which orders the lock calls only) then diverges:
# the recorded run's output must be sort's own, and every sync replay must
# either exit 0 with it or stop with status 3 and name a data race as the
# likely cause (never exit 0 with other output). doc/record.md "Real
# programs".
. "$(dirname "$0")/lib.sh"
need_progs sort
plan 7

# 300,000 lines in a pseudo-random order (the same every run)
awk 'BEGIN { x = 12345; for (i = 0; i < 300000; i++) {
	x = (x * 1103515245 + 12345) % 2147483648; printf "%08x line %d\n", x, i } }' >lines.txt
sort --parallel=2 lines.txt >native.out
num_cmp "$(wc -l <native.out)" -eq 300000 "sort alone sorts the 300,000 lines"

wall spool_run record -q -o serial.trace -- sort --parallel=2 lines.txt
diag "serial record ${WALL} s"
ok "serial: record exits 0 with sort's own output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
replays_same 3 0 native.out -q -o rep.trace serial.trace
is "$SAME" 3 "serial: 3 replays of 3 exit 0 with the sorted output"

wall spool_run record -q --mode sync -o sync.trace -- sort --parallel=2 lines.txt
diag "sync record ${WALL} s"
ok "sync: record exits 0 with sort's own output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out native.out" || show_run
same=0 diverged=0 wrong=0
for i in 1 2 3; do
	spool_run replay -q -o rep.trace sync.trace
	if [ "$RC" = 0 ] && cmp -s run.out native.out; then
		same=$((same + 1))
	elif [ "$RC" = 3 ] && grep -q 'replay diverged' run.err &&
		grep -q 'data race.*likely cause' run.err; then
		diverged=$((diverged + 1))
	else
		wrong=$((wrong + 1))
		show_run
	fi
done
diag "sync replays: $same identical, $diverged diverged naming a data race"
is "$wrong" 0 "sync: no replay exits 0 with other output or diverges without saying why"
is "$((same + diverged))" 3 "sync: each replay is exact or stops at the race"
# The recording itself is complete: what diverges is the program.
unlike "$(cat sync.trace/.spool/record)" 'report=' "sync: the recording lost nothing"
done_testing
