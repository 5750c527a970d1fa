#!/bin/bash
# SPDX-License-Identifier: MIT
# 76-dir-listing-replay.t - Debian's ls -la, find, git status, python3
# (os.listdir, os.scandir in 4 threads, os.readlink, os.path.realpath,
# os.getcwd), tar -cf - and du -a recorded in a directory that then changes (a file removed,
# one added, a tracked file edited, a link pointed elsewhere, a
# subdirectory removed) and replayed there: each replay prints the
# recorded listing (src/agent/agent_rr_dir.c, agent_rr_path.c: opendir,
# readdir, getdents64, statx, lgetxattr, readlink, realpath, getcwd are
# inputs). Serial and sync mode, 3 replays each, every replay exits 0
# with the recorded output. Each program alone prints something else in
# the changed directory, so the test can fail. The replays run in the
# directory they list and leave nothing there (their traces go into the
# recordings, TRACE/replays/N). Then `rm -r` of a tree, replayed with the
# tree gone (the recorded run removed it): exit 0 as recorded, and nothing
# outside the tree is touched.
. "$(dirname "$0")/lib.sh"
need_progs ls find git tar du "$REAL_PY"
plan 36

export LC_ALL=C TZ=UTC
mkdir traces
mkdir -p w/sub
cd w || exit 1
echo one >a
echo two >b
echo x >sub/x
ln -s a lnk
git init -q . && git add a b && git -c user.email=t@t -c user.name=t commit -qm init
echo untracked >u
cat >../list.py <<'PY'
import os, threading
print(sorted(os.listdir(".")))
seen = {}
def scan(i):
    seen[i] = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in os.scandir("."))
ts = [threading.Thread(target=scan, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print(all(seen[i] == seen[0] for i in range(4)), seen[0])
print(os.readlink("lnk"), os.path.realpath("lnk") == os.path.join(os.getcwd(), "a"))
PY

# name: the command line of each program (run in w/)
progs=(ls find git py tar du)
cmd_ls=(ls -la --time-style=+%s .)
cmd_find=(find . -path ./.git -prune -o -print)
cmd_git=(git status --short)
cmd_py=("$REAL_PY" ../list.py)
cmd_tar=(tar --mtime=@0 --owner=0 --group=0 --exclude=./.git -cf - .)
cmd_du=(du -a --exclude=./.git .)

# Record each program in each mode, in w/ as it is now.
for p in "${progs[@]}"; do
	eval "cmd=(\"\${cmd_$p[@]}\")"
	"${cmd[@]}" >"../traces/$p.native" 2>&1
	for mode in serial sync; do
		"$SPOOL" record -q --mode "$mode" -o "../traces/$p-$mode" -- "${cmd[@]}" \
			>"../traces/$p-$mode.out" 2>"../traces/$p-$mode.err"
		rc=$?
		ok "$p, $mode: record exits 0 with the native output" \
			bash -c "[ $rc = 0 ] && cmp -s ../traces/$p.native ../traces/$p-$mode.out" ||
			diag "$(cat "../traces/$p-$mode.err")" "$(diff "../traces/$p.native" "../traces/$p-$mode.out")"
	done
done

# The directory changes.
rm b
echo new >c
echo more >>a
ln -sfn c lnk
rm -r sub
before=$(ls -A)
for p in "${progs[@]}"; do
	eval "cmd=(\"\${cmd_$p[@]}\")"
	"${cmd[@]}" >"../traces/$p.changed" 2>&1
	ok "$p alone prints something else in the changed directory" \
		bash -c "! cmp -s ../traces/$p.native ../traces/$p.changed"
done

# 3 replays of each, in the changed directory (the program's own).
for p in "${progs[@]}"; do
	for mode in serial sync; do
		same=0
		for i in 1 2 3; do
			wall "$SPOOL" replay -q "../traces/$p-$mode" >"../traces/$p-$mode.rep" \
				2>"../traces/$p-$mode.rep.err"
			if [ "$RC" = 0 ] && cmp -s "../traces/$p-$mode.out" "../traces/$p-$mode.rep"; then
				same=$((same + 1))
			else
				diag "$p $mode replay $i: exit $RC" "$(head -n 8 "../traces/$p-$mode.rep.err")" \
					"$(diff "../traces/$p-$mode.out" "../traces/$p-$mode.rep" | head -n 10)"
			fi
		done
		diag "$p $mode: last replay ${WALL} s"
		is "$same" 3 "$p, $mode: 3 replays of 3 exit 0 with the recorded listing"
	done
done
is "$(ls -A)" "$before" "the replays left nothing in the directory they list"
cd "$T_DIR" || exit 1

# rm -r of a tree: the recorded run removed it, so every replay runs with
# the tree gone. Its opens of the tree's directories get an inert stand-in
# (never "/": rm's unlinkat relative to it would remove the names the
# recording listed from the root directory), its unlinks return what they
# returned: the recorded exit status. A name like the tree's file is put
# in / (when the test may) and must still be there after the replays.
canary="spool-canary-$$"
for mode in serial sync; do
	mkdir -p tree/sub
	touch "tree/$canary" tree/sub/x
	"$SPOOL" record -q --mode "$mode" -o "traces/rm-$mode" -- rm -r tree \
		>/dev/null 2>"traces/rm-$mode.err"
	ok "rm -r, $mode: record exits 0 and removes the tree" \
		bash -c "[ $? = 0 ] && [ ! -e tree ]" || diag "$(cat "traces/rm-$mode.err")"
done
placed=0
if [ "$(id -u)" = 0 ] && [ ! -e "/$canary" ] && touch "/$canary" 2>/dev/null; then
	placed=1
fi
for mode in serial sync; do
	same=0
	for i in 1 2 3; do
		"$SPOOL" replay -q "traces/rm-$mode" >/dev/null 2>"traces/rm-$mode.rep.err" &&
			same=$((same + 1))
	done
	is "$same" 3 "rm -r, $mode: 3 replays of 3 with the tree gone exit 0 as recorded" ||
		diag "$(cat "traces/rm-$mode.rep.err")"
done
if [ "$placed" = 1 ]; then
	ok "... and /$canary, a name the recording listed in the tree, is still in /" \
		test -e "/$canary"
	rm -f "/$canary"
else
	skip 1 "not root, or / is not writable: no name put in /"
fi
done_testing
