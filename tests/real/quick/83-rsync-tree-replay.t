#!/bin/bash
# SPDX-License-Identifier: MIT
# 83-rsync-tree-replay.t - Debian's rsync copying a directory tree locally:
# three processes (the sender, the generator forked by the receiver, the
# receiver) talking through pipes. Under `spool locks` the copy is made and
# the trace has the three processes; recorded in serial and in sync mode,
# each recording replayed 4 times into an empty destination: rsync's
# output (-v: the file list) is the recorded one, exit 0, and the files it
# writes are the source's. (1 serial replay in 8 used to go another way:
# the receiver, replaying from its log at its own pace, got to a directory
# before the generator, another process, had made it, opened a stand-in,
# failed the fchmod of its temporary file and unlinked it. A process of a
# tree now waits for a name another one makes.)
. "$(dirname "$0")/../lib.sh"
need_progs rsync
plan 11

mkdir -p src/d/e
seq 1 5000 >src/a
seq 1 100000 >src/d/b
printf 'x\n' >src/d/e/c
rsync -av src/ dst/ >native.out
is "$?" 0 "rsync alone copies the tree"

spool_run locks -q -o l.trace -- rsync -a src/ dl/
ok "under spool locks: exit 0, the tree copied" \
	bash -c "[ $RC = 0 ] && diff -r src dl >/dev/null" || show_run
procs=$("$SPOOL" info l.trace 2>/dev/null | sed -n 's/^processes=//p')
is "${procs:-none}" 3 "  the trace has rsync's three processes"

for mode in serial sync; do
	rm -rf dst
	spool_run record -q --mode $mode -o r.$mode -- rsync -av src/ dst/
	ok "$mode: recorded, the tree copied" \
		bash -c "[ $RC = 0 ] && diff -r src dst >/dev/null" || show_run
	cp run.out rec.$mode.out
	same=0 said=0
	for i in 1 2 3 4; do
		rm -rf dst
		spool_run replay -q -o rep.trace r.$mode
		if [ "$RC" = 0 ] && cmp -s run.out rec.$mode.out && diff -r src dst >/dev/null; then
			same=$((same + 1))
		elif [ "$RC" = 3 ] && grep -q '^spool: error: .*replay diverged' run.err; then
			said=$((said + 1))
			diag "$mode replay $i: $(grep -m 1 -A 2 '^spool: error: ' run.err)"
		else
			show_run
		fi
	done
	is "$((same + said))" 4 "$mode: 4 replays of 4: identical (exit 0, the output, the files) or a reported divergence"
	is "$same" 4 "$mode: 4 replays of 4 identical"
	# (without its speed line, "sent N bytes ... N bytes/sec", a time)
	ok "$mode: the file list is rsync's own" \
		cmp -s <(grep -v '^sent \|^total size' rec.$mode.out) <(grep -v '^sent \|^total size' native.out)
done

done_testing
