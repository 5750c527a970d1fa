#!/bin/bash
# SPDX-License-Identifier: MIT
# 138-replay-end-signal.t - a replay that ends otherwise than its
# recording says so: killed by a signal the recorded run was not killed by
# (or the other way round), or another exit status, is a divergence
# ("replay diverged: ..." and exit status 3), never the normal "replayed"
# line. rr_endsig ends as the file it maps says (mmap'd contents are not
# recorded), so the test changes the file between record and replay. A
# recorded crash replayed unchanged ends with the same signal, and no
# divergence is reported. Both modes. And `spool replay` without TRACE
# replays ./spool.trace, as every other command defaults to it.
. "$(dirname "$0")/lib.sh"
plan 19

P="$PROGS/rr_endsig"
for m in serial sync; do
	echo 0 >end.txt
	spool_run record --mode "$m" -o "r0.$m" -- "$P" "$T_DIR/end.txt"
	is_rc 0 "$m: recorded a run that exits 0"
	echo segv >end.txt
	spool_run replay -o rep "r0.$m"
	is_rc 3 "$m: its replay killed by SIGSEGV exits 3 (diverged)"
	like "$ERR" "replay diverged: the program was killed by signal 11 \(Segmentation fault\).*the recorded run exited with status 0" \
		"$m: and says it was killed by signal 11 where the recorded run exited 0"
	unlike "$ERR" "^spool: replayed " "$m: no normal 'replayed' line"

	echo 7 >end.txt
	spool_run replay -o rep "r0.$m"
	like "$RC:$(grep 'replay diverged' run.err)" "^3:.*replay diverged: the program exited with status 7; the recorded run exited with status 0" \
		"$m: a replay exiting 7 where the recording exited 0 exits 3 and says so"

	echo segv >end.txt
	spool_run record --mode "$m" -o "rs.$m" -- "$P" "$T_DIR/end.txt"
	is_rc 139 "$m: recorded a run killed by SIGSEGV (139)"
	spool_run replay -o rep "rs.$m"
	is_rc 139 "$m: replayed unchanged, it is killed by SIGSEGV again (139), as recorded"
	echo 0 >end.txt
	spool_run replay -o rep "rs.$m"
	# (sync mode orders the descriptor table: the replay's close after the
	# point where the recorded run crashed is already a call the recording
	# does not have, said as such)
	like "$RC:$(grep 'replay diverged' run.err)" "^3:.*replay diverged(: the program exited with status 0; the recorded run was killed by signal 11 \(Segmentation fault\)| in thread 0 .*the replay makes a call the recording does not have)" \
		"$m: a replay that exits 0 where the recording crashed exits 3 and says so"
done

mkdir d && cd d || exit 1
spool_run replay -o rep
like "$RC:$ERR" "^1:.*recording .spool.trace. does not exist" \
	"spool replay without TRACE where there is no spool.trace: says so (exit 1)"
echo 0 >end.txt
spool_run record -- "$P" "$T_DIR/d/end.txt"
cp run.out rec.out
spool_run replay -o rep
is_rc 0 "spool replay without TRACE replays ./spool.trace (exit 0)"
ok "with the recorded output" cmp -s run.out rec.out
cd "$T_DIR" || exit 1
done_testing
