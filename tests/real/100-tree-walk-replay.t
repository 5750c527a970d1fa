#!/bin/bash
# SPDX-License-Identifier: MIT
# 100-tree-walk-replay.t - Debian programs that walk a tree: util-linux's
# `hardlink -n -v` and libcap's `getcap -v -r` walk it with glibc's nftw
# (recorded at the level the program sees it: src/agent/agent_rr_ftw.c);
# findutils' `find` and coreutils' `du -a` with gnulib's fts, built into
# them, whose openat, fdopendir, readdir and fstatat are interposed calls.
# Each recorded in serial and in sync mode in a tree that then changes (a
# file removed, files added, a subdirectory gone), and replayed there 3
# times: every replay exits 0 with the recorded output, where each program
# alone now prints another (hardlink's duration comes from the recorded
# clock).
. "$(dirname "$0")/lib.sh"
need_progs hardlink getcap find du
plan 17

export LC_ALL=C
mkdir -p t/a/b t/a/gone t/c
echo same >t/a/f1
echo same >t/a/b/f2
echo other >t/a/gone/f4
seq 100 >t/c/f3

names=(hardlink getcap find du)
cmd_hardlink=(hardlink -n -v t)
cmd_getcap=(getcap -v -r t)
cmd_find=(find t)
cmd_du=(du -a t)
for p in "${names[@]}"; do
	eval "cmd=(\"\${cmd_$p[@]}\")"
	"${cmd[@]}" 2>&1 | grep -v '^Duration:' >"$p.native"
	for mode in serial sync; do
		spool_run record -q --mode "$mode" -o "$p.$mode" -- "${cmd[@]}"
		cp run.out "$p.$mode.out"
		ok "$p $mode: recorded (exit 0) with the program's own output" \
			test "$RC" = 0 -a -z "$(grep -v '^Duration:' run.out | diff "$p.native" -)" ||
			show_run
	done
done

rm -r t/a/gone t/a/f1
echo same >t/c/new1
echo same >t/new2
for p in "${names[@]}"; do
	eval "cmd=(\"\${cmd_$p[@]}\")"
	"${cmd[@]}" 2>&1 | grep -v '^Duration:' >"$p.changed"
	for mode in serial sync; do
		same=0
		for i in 1 2 3; do
			"$SPOOL" replay -q -o rp "$p.$mode" >rep.out 2>rep.err
			rc=$?
			if [ "$rc" = 0 ] && cmp -s rep.out "$p.$mode.out"; then
				same=$((same + 1))
			else
				diag "$p $mode replay $i: exit $rc" "$(diff "$p.$mode.out" rep.out | head)" "$(tail -n 5 rep.err)"
			fi
		done
		is "$same" 3 "$p $mode: 3 replays of 3 in the changed tree print the recorded walk"
	done
done
ok "each program alone walks the changed tree differently (so the checks above can fail)" \
	test -n "$(diff hardlink.native hardlink.changed)" -a -n "$(diff getcap.native getcap.changed)" \
	-a -n "$(diff find.native find.changed)" -a -n "$(diff du.native du.changed)"
done_testing
