#!/bin/bash
# SPDX-License-Identifier: MIT
# 373-rr-fork-signal.t - a signal that comes while a process is inside a fork
# is delivered, when recorded, at the fork's record: after the real fork,
# in the parent only. Its replay must deliver it after the fork too (issue
# 13). Before, the replay delivered it before forking, the child copied
# what the handler did, and `sh -c 'echo x | jq .'` replayed wrongly 1 time
# in 4: dash's echo child had its parent's SIGCHLD flag and called wait4
# ("replay diverged ... the replay makes a call the recording does not
# have"). rr_forksig's child B prints whether the handler ran before its
# fork; each replay must print what the recording printed. The race is the
# kernel's: the recording decides, the replays follow (the old agent's
# replays differed in 9 of 10 runs).
. "$(dirname "$0")/lib.sh"

plan 7

P="$PROGS/rr_forksig"

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P" 128
	is_rc 0 "$mode: record exits 0"
	cp run.out "$mode.out"
	like "$OUT" "child B: SIGCHLD handler ran before my fork: no" \
		"  the recorded child B saw the handler's flag clear"
	replays_same 3 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recorded output"
done

# dash, as found: a pipeline of two children
if command -v jq >/dev/null; then
	same=0
	for i in 1 2 3 4 5 6; do
		spool_run record -q -o sh.trace -- sh -c 'echo "{\"a\":[1,2,3]}" | jq ".a|add"'
		cp run.out sh.out
		spool_run replay -q sh.trace
		if [ "$RC" = 0 ] && cmp -s run.out sh.out; then
			same=$((same + 1))
		else
			show_run
		fi
	done
	is "$same" 6 "sh -c 'echo ... | jq': 6 recordings of 6 replay as recorded"
else
	skip 1 "jq is not installed"
fi

done_testing
