#!/bin/bash
# SPDX-License-Identifier: MIT
# 124-replay-out-dir.t - a replay's own trace goes inside the recording,
# TRACE/replays/N, N the next number (src/trace/replaydir.c), never into
# the directory the program runs in: a program that lists its directory
# (CPython does when it imports) must see what it saw when recorded. What a
# user checks: where the replays went, that the directory they worked in
# got nothing new, that spool info counts the replays and reads each of
# them, that -o still chooses, that `spool replay` alone takes
# ./spool.trace, that recording again over the trace keeps it (replays
# and all) as TRACE.old, and that the rules of trust hold for replays/: a
# file of the user's inside it is never removed, and a link planted there
# by whoever made the trace is not written through.
. "$(dirname "$0")/lib.sh"

plan 18

P="$PROGS/rr_dirs"
mkdir -p work/sub
touch work/a
ln -s a work/lnk
cd work || exit 1
"$SPOOL" record -q -- "$P" . >rec.out 2>rec.err
is "$?" 0 "record in the program's directory, default trace name"
before=$(ls -A)

"$SPOOL" replay spool.trace >rep.out 2>rep.err
is "$?" 0 "replay without -o exits 0"
like "$(cat rep.err)" 'replay trace in spool\.trace/replays/1/$' "... and says its trace is in spool.trace/replays/1/"
"$SPOOL" replay -q >rep2.out 2>rep2.err
is "$?" 0 "spool replay without a trace replays ./spool.trace"
ok "... into spool.trace/replays/2" test -f spool.trace/replays/2/metadata
rm -f rep.out rep.err rep2.out rep2.err
is "$(ls -A)" "$before" "the directory the program lists got nothing from the two replays"
"$SPOOL" info spool.trace/replays/1 >info1.out 2>&1
is "$?" 0 "spool info reads a replay's trace"
rm -f info1.out
like "$("$SPOOL" info spool.trace 2>&1)" '^replays: 2, their traces in spool\.trace/replays/' \
	"spool info of the recording counts its replays"
like "$("$SPOOL" replay spool.trace/replays/1 2>&1)" 'is the trace of a replay.*replay the recording it is in' \
	"spool replay of a replay's trace says to replay the recording"

"$SPOOL" replay -q -o ../chosen.trace >/dev/null 2>&1
is "$?" 0 "-o still chooses where the replay's trace goes"
ok "... there, and not a third replays/ entry" \
	bash -c 'test -f ../chosen.trace/metadata && ! test -e spool.trace/replays/3'

"$SPOOL" record -q -- "$P" . >/dev/null 2>&1
is "$?" 0 "recording again over a trace that has replays"
ok "... keeps the previous one, replays and all, as spool.trace.old" \
	test -f spool.trace.old/replays/2/metadata

# A file of the user's in replays/: a trace spool does not fully
# recognize is never moved or removed.
"$SPOOL" replay -q >/dev/null 2>&1
echo "my notes" >spool.trace/replays/notes.txt
"$SPOOL" record -q -- "$P" . >/dev/null 2>rec3.err
is "$?" 1 "recording over a trace whose replays/ holds a file spool did not write is refused"
is "$(cat spool.trace/replays/notes.txt)" "my notes" "... and the file is still there"
rm -f rec3.err
cd "$T_DIR" || exit 1

# A link planted in a recording (it may come from someone else): the
# replay's trace does not go through it.
mkdir victim
cp -r work/spool.trace.old planted.trace
rm -rf planted.trace/replays
ln -s "$T_DIR/victim" planted.trace/replays
mkdir tmp
TMPDIR=$T_DIR/tmp spool_run replay -q planted.trace
is_rc 0 "a recording whose replays is a link replays"
is "$(ls -A victim)" "" "... and writes nothing where the link points"
like "$ERR" "cannot write the replay's trace into planted\.trace/replays.*goes to $T_DIR/tmp/spool-replay-" \
	"... its trace goes under \$TMPDIR, and spool says so"
done_testing
