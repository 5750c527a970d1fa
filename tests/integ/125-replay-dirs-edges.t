#!/bin/bash
# SPDX-License-Identifier: MIT
# 125-replay-dirs-edges.t - the edges of replaying directory contents and
# names (rr_dirs_edge): 70 directory streams open at once and read in
# turns (more than the agent's first 64 entry buffers: each stream keeps
# its own entry in the replay too), a file opened, read and fstat'ed that
# is gone before the replay (a stand-in takes its recorded descriptor
# number, its bytes come from the recording), a name that did not exist
# when recorded and exists at the replay (the recorded ENOENT, and the
# file is left as it is), a link pointed elsewhere, getcwd into 2 bytes
# (ERANGE). Serial and sync mode, two replays each. Then a replay with a
# smaller buffer for readlink than the recorded run had: a divergence
# (exit 3) that says why, never a write past the buffer.
. "$(dirname "$0")/lib.sh"

plan 10

P="$PROGS/rr_dirs_edge"
mkdir d
echo hello >d/data
ln -s data d/lnk
"$P" d 64 >native.out
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P" d 64
	cp run.out "$mode.out"
	ok "$mode: the recorded run prints what the program prints alone" cmp -s native.out "$mode.out"
done
like "$(cat native.out)" 'round 2 stream 69: ' "70 streams were read in turns"

rm d/data
echo surprise >d/absent
ln -sfn absent d/lnk
"$P" d 64 >changed.out
ok "the program alone now prints something else" bash -c '! cmp -s native.out changed.out'

for mode in serial sync; do
	replays_same 2 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 print the recorded entries, file, names and errors"
done
is "$(cat d/absent)" "surprise" "the file the recorded run did not find is left as it is"
ok "... and the file the recorded run read is not made again" test ! -e d/data

spool_run replay -q serial.trace -- "$P" d 2
is_rc 3 "a replay whose readlink buffer cannot hold the recorded target diverges"
like "$ERR" 'recorded data does not fit the buffer' "... and says why"
done_testing
