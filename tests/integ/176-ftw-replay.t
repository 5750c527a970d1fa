#!/bin/bash
# SPDX-License-Identifier: MIT
# 176-ftw-replay.t - glibc's tree walks recorded at the level the program
# sees them (src/agent/agent_rr_ftw.c) and scandirat made of the interposed
# openat, fdopendir and readdir (agent_rr_dir.c): rr_netdb walk DIR runs
# nftw (FTW_PHYS; FTW_DEPTH with FTW_ACTIONRETVAL; FTW_CHDIR, opening each
# file by its base name from the directory nftw is in), ftw, an nftw of a
# missing directory and scandirat. Recorded in serial and in sync mode; the
# recording prints what the program alone prints; then the tree changes (a
# file removed, two added, one at the top that scandirat lists, a
# subdirectory gone, a link pointed elsewhere)
# and 3 replays of each recording print the recorded walk, where the
# program alone now prints another.
. "$(dirname "$0")/lib.sh"

plan 7

P="$PROGS/rr_netdb"
mkdir -p t/a/skipme/x t/c
echo one >t/a/f1
echo two >t/a/skipme/x/f2
echo three >t/c/f3
ln -s f3 t/c/link
"$P" walk t >native.out 2>&1
for mode in serial sync; do
	spool_run record --mode "$mode" -o "walk.$mode" -- "$P" walk t
	cp run.out "walk.$mode.out"
	ok "$mode: recorded (exit 0) with the program's own output" \
		test "$RC" = 0 -a -z "$(diff native.out run.out)" ||
		{ show_run; diag "$(diff native.out run.out | head)"; }
done
like "$(tr '\n' ' ' <native.out)" "nftw t/c/link flag 4 .*nftw-chdir t/a/f1: one .*ftw t/a/skipme/x/f2 flag 0 .*nftw of a missing directory: -1 scandirat: 4" \
	"the walks saw the tree (a link, files read from nftw's directory, a missing one, scandirat)"

rm -r t/a/skipme t/a/f1
echo new >t/a/new
echo top >t/top
ln -sf ../a t/c/link
"$P" walk t >changed.out 2>&1
ok "the program alone walks the changed tree differently (so the next checks can fail)" \
	test -n "$(diff native.out changed.out)"
for mode in serial sync; do
	replays_same 3 0 "walk.$mode.out" -o rp "walk.$mode"
	is "$SAME" 3 "$mode: 3 replays of 3 in the changed tree print the recorded walks"
done

"$SPOOL" replay --dump-schedule walk.serial >sched.txt 2>/dev/null
calls=$(awk '$1 == "input" { for (i = 1; i < NF; i++) if ($i == "call") print $(i + 1) }' sched.txt |
	sort -un | tr '\n' ' ')
like " $calls" ' 51 .* 83 ' "the recording has readdir (scandirat) and the walks' entries (call 83)"
done_testing
