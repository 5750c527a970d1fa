#!/bin/bash
# SPDX-License-Identifier: MIT
# 123-replay-dirs.t - directory contents and names are recorded and
# replayed (src/agent/agent_rr_dir.c, agent_rr_path.c): rr_dirs lists a
# directory in every way glibc offers (readdir in a second thread,
# scandir, fdopendir with readdir_r, telldir/seekdir/rewinddir,
# getdents64 through its wrapper and through syscall()), reads a link,
# resolves names, asks for its working directory, statx, lgetxattr, glob.
# Between the recording and the replays the directory changes (a file
# removed, one added, the link pointed elsewhere, a subdirectory removed):
# every replay prints what the recorded run saw, in serial and in sync
# mode. Then the whole directory is moved away (the recorded working
# directory is gone): the replay still prints the recorded run's view.
. "$(dirname "$0")/lib.sh"

plan 13

P="$PROGS/rr_dirs"
mkdir -p tree/d/sub
touch tree/d/a tree/d/b tree/d/sub/x
ln -s a tree/d/lnk
# spool_run leaves run.out and run.err where it runs: the program alone
# runs beside the same two files.
cd tree/d || exit 1
"$P" . >run.out 2>run.err
cp run.out "$T_DIR/native.out"
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$T_DIR/$mode.trace" -- "$P" .
	cp run.out "$T_DIR/$mode.out"
	# (the two threads' lines interleave as they ran: compared sorted)
	is "$(sort "$T_DIR/$mode.out")" "$(sort "$T_DIR/native.out")" \
		"$mode: the recorded run prints what the program prints alone"
done
cd "$T_DIR" || exit 1
like "$(cat native.out)" 'T0 readlink a$' "rr_dirs read the link"

# The directory changes.
rm tree/d/a tree/d/run.out tree/d/run.err
touch tree/d/c
ln -sfn b tree/d/lnk
rm -r tree/d/sub
(cd tree/d && "$P" . >"$T_DIR/changed.out")
ok "the program alone now prints something else" \
	bash -c '! cmp -s <(sort native.out) <(sort changed.out)'

for mode in serial sync; do
	replays_same 3 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 in the changed directory print the recorded listing, link and names"
done
like "$(cat serial.out)" 'T1 entry a type 8' "the listing the replays print has the file removed since"
like "$(cat serial.out)" 'T0 opendir sub ok' "... and the subdirectory removed since"
like "$(cat serial.out)" 'T0 glob name \./sub/$' "... and glob's names too (glibc's glob reads the directory inside libc)"

# The directory is moved away: the recorded working directory is gone.
mv tree moved
for mode in serial sync; do
	spool_run replay -q "$mode.trace"
	is_rc 0 "$mode: the replay runs with the recorded directory gone"
	cmp -s "$mode.out" run.out
	is "$?" 0 "$mode: ... and prints the recorded run's view of it" ||
		diag "$(diff "$mode.out" run.out | head -n 20)"
done
done_testing
