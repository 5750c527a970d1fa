#!/bin/bash
# SPDX-License-Identifier: MIT
# 398-side-dir-user-files.t - a user's file planted anywhere inside a
# trace's .spool/ directory is never removed. spool checked only a trace's
# top level before it moved a trace to DIR.old or removed an older DIR.old
# (nftw over the whole tree), so notes, a directory or a symbolic link put
# under .spool/ went with the trace without a word. Now -o refuses such a
# trace, naming the file, and removes nothing, at every depth (.spool,
# .spool/proc, .spool/snap, a directory of the user's, a replay's trace
# under replays/); a symbolic link pointing outside is refused and its
# target left as it was. A trace holding only what spool wrote (snapshots,
# the replay image, standard input, replays) is still replaced.
. "$(dirname "$0")/lib.sh"
plan 26

P="$PROGS/lockcount"
mkdir outside
echo 'keep me' >outside/precious
# fresh: t, a new trace (t.old gone)
fresh() {
	rm -rf t t.old
	spool_run locks -q -o t -- "$P" 1 10
}
# refused WHAT PATH: a second -o t is refused naming PATH (relative to t),
# which is still there, and t is still the trace it was
refused() {
	local before
	before=$(cd t && find . | sort | md5sum)
	spool_run locks -q -o t -- "$P" 1 10
	is "$RC:$(grep -c "t is a spool trace that also holds '$2'" run.err)" "1:1" \
		"$1: -o t is refused, naming $2" || show_run
	is "$(cd t && find . | sort | md5sum):$(test -e t.old && echo old)" "$before:" \
		"  nothing was removed or moved"
}

fresh
echo mine >t/.spool/notes.txt
refused "a file in .spool" .spool/notes.txt
is "$(cat t/.spool/notes.txt)" mine "  the file keeps its content"

fresh
mkdir -p t/.spool/mine/deeper
echo mine >t/.spool/mine/deeper/work.c
refused "a directory in .spool" .spool/mine

fresh
echo mine >t/.spool/proc/notes
refused "a file in .spool/proc" .spool/proc/notes

fresh
mkdir t/.spool/proc/12.maps.d
refused "a directory in .spool/proc, with a name like spool's" .spool/proc/12.maps.d

fresh
mkdir -p t/.spool/snap/keep
echo mine >t/.spool/snap/keep/deep.txt
refused "a directory in .spool/snap" .spool/snap/keep

fresh
ln -s ../../outside t/.spool/elsewhere
refused "a symbolic link in .spool to a directory outside" .spool/elsewhere
is "$(cat outside/precious)" "keep me" "  the link's target is untouched"

fresh
mapsf=$(cd t/.spool/proc && ls | grep '\.maps$' | head -n 1)
rm "t/.spool/proc/$mapsf"
ln -s ../../../outside/precious "t/.spool/proc/$mapsf"
refused "a symbolic link under one of spool's names in .spool/proc" ".spool/proc/$mapsf"
is "$(cat outside/precious)" "keep me" "  the link's target is untouched"

fresh
rm t/.spool/summary
mkdir t/.spool/summary
echo mine >t/.spool/summary/x
refused "a directory under one of spool's file names" .spool/summary

# the same in DIR.old, which the next -o removes
fresh
spool_run locks -q -o t -- "$P" 1 10
echo mine >t.old/.spool/proc/notes
spool_run locks -q -o t -- "$P" 1 10
is "$RC:$(grep -c "t.old is a spool trace that also holds '.spool/proc/notes'" run.err)" "1:1" \
	"a file in t.old/.spool/proc: -o t is refused (it would remove t.old), naming it"
is "$(cat t.old/.spool/proc/notes 2>/dev/null)" mine "  the file is still there"

# a replay's trace under a recording's replays/
rm -rf r r.old
spool_run record -q -o r -- "$P" 1 10
spool_run replay -q r
echo mine >r/replays/1/.spool/notes
spool_run record -q -o r -- "$P" 1 10
is "$RC:$(grep -c "r is a spool trace that also holds 'replays/1/.spool/notes'" run.err)" "1:1" \
	"a file in a replay's .spool under replays/: -o r is refused, naming it" || show_run
is "$(cat r/replays/1/.spool/notes 2>/dev/null)" mine "  the file is still there"

# what spool writes is still replaced: snapshots, the replay image, the
# standard input it kept, a replay
rm -rf s s.old
echo input >in.txt
RUN_STDIN=in.txt
spool_run record -q --snap-period 2 -o s -- "$PROGS/lockcount" 2 200
RUN_STDIN=/dev/null
spool_run replay -q s
ok "a recording with snapshots, a replay image, its input and a replay: made" \
	test -d s/replays/1 -a -f s/.spool/replay.img -a -d s/.spool/snap -a -f s/.spool/stdin
spool_run record -q -o s -- "$P" 1 10
is "$RC" 0 "  -o over it replaces it" || show_run
ok "  and keeps it as s.old" test -f s.old/.spool/replay.img
done_testing
