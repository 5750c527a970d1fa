#!/bin/bash
# SPDX-License-Identifier: MIT
# 77-git-grep-replay.t - Debian's git grep --threads=2 over a clone of this
# repository, recorded in sync and in serial mode and replayed three times
# each: every replay exits 0 with the recorded output (the file names and
# lines that match). Its worker threads open the files they search at
# once: in sync mode their descriptor numbers depend on the order of the
# opens, and the replay used to read "on another descriptor" and stop,
# blaming a data race; sync mode now orders the descriptor table
# (doc/record.md "Descriptor numbers").
. "$(dirname "$0")/lib.sh"
need_progs git
plan 8

git clone -q "$REPO" repo 2>clone.err || {
	diag "$(cat clone.err)"
	echo "Bail out! cannot clone the repository"
	exit 1
}
cd repo || exit 1
GREP=(git --no-pager grep --threads=2 -n -e agent_rr -e rr_log)
"${GREP[@]}" >../native.out
num_cmp "$(wc -l <../native.out)" -ge 200 "git grep alone finds the pattern in many files"

for mode in sync serial; do
	wall spool_run record -q --mode "$mode" -o "../$mode.trace" -- "${GREP[@]}"
	diag "$mode record ${WALL} s"
	ok "$mode: record exits 0 with git grep's own output" \
		bash -c "[ $RC = 0 ] && cmp -s run.out ../native.out" || show_run
	cp run.out "../$mode.out"
	replays_same 3 0 "../$mode.out" -q -o ../rep.trace "../$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 exit 0 with the recorded output"
	unlike "$ERR" 'diverged' "$mode: no divergence"
done
# The sync recording ordered the descriptor calls of both workers.
"$SPOOL" replay --dump-schedule ../sync.trace >../dump.txt 2>/dev/null
num_cmp "$(grep -c ' op 60 ' ../dump.txt)" -ge 200 "sync: the opens and closes took turns of the table"
cd "$T_DIR" || exit 1
done_testing
