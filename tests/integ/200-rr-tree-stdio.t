#!/bin/bash
# SPDX-License-Identifier: MIT
# 200-rr-tree-stdio.t - a process tree that prints through stdio and reads
# pipes through stdio (issue 13): rr_treeprint's parent and children printf
# to one line-buffered stdout between sleeps, so the recorded output
# interleaves the processes; glibc's stdio writes through its own __write,
# which no interposer sees, and before, each replayed process printed at
# its own pace (the lines came out in another order). In serial mode the
# agent now routes stdio's reads and writes through its own (glibc's file
# jump tables): 3 replays print the recorded lines in the recorded order.
# A child that sums a pipe through fgets, and one that reads a pipe with
# fread and readv, replayed alone (--pid) print their recorded line and
# end (before, the fgets child waited for good for a writer that does not
# run). --pid PID --gdb puts gdb on that process of the tree; --path is
# refused with what to do instead.
. "$(dirname "$0")/lib.sh"

plan 15

TP="$PROGS/rr_treeprint"

spool_run record -o s.trace -- "$TP" 3
is_rc 0 "record of rr_treeprint (3 printing children, 2 pipe readers) exits 0"
cp run.out rec.out
like "$ERR" "recorded .*6 processes" "  spool says it recorded the 6 processes"
is "$(grep -c 'line' rec.out)" 19 "  the recording printed every line (15 children's, 4 parent's)"
flags=$(sed -n 's/^flags=//p' s.trace/.spool/record)
ok "  and notes that it saw stdio's own reads and writes (flags $flags has 0x40000)" \
	test $(( ${flags:-0} & 0x40000 )) -ne 0
replays_same 3 0 rec.out -q s.trace
is "$SAME" 3 "3 replays of 3 print the recorded lines in the recorded order"

# The same program is not bound to that order: alone, its lines interleave
# by timing (shown so a failure above can be told from a fixed order).
"$TP" 3 >native.out
diag "native run's order against the recording's: $(diff rec.out native.out | grep -c '^[<>]') lines differ"

rpid=$(sed -n 's/^reader (pid \([0-9]*\)).*/\1/p' rec.out)
fpid=$(sed -n 's/^freader (pid \([0-9]*\)).*/\1/p' rec.out)
ok "the recording names the two readers' pids" test -n "$rpid" -a -n "$fpid"
spool_run replay -q --pid "${rpid:-0}" s.trace
is_rc 0 "--pid of the fgets reader exits 0 (its writer does not run)"
is "$OUT" "$(grep '^reader ' rec.out)" "  and prints its recorded sum"
spool_run replay -q --pid "${fpid:-0}" s.trace
is_rc 0 "--pid of the fread/readv reader exits 0"
is "$OUT" "$(grep '^freader ' rec.out)" "  and prints what it read as recorded"

# gdb on one process of the tree: it follows the forks on the way to it.
if command -v gdb >/dev/null 2>&1; then
	spool_run replay --pid "${rpid:-0}" --gdb \
		--gdb-args '-batch -ex "break reader" -ex run -ex bt -ex continue' s.trace
	is_rc 0 "--pid PID --gdb of the fgets reader exits 0"
	like "$OUT" "hit Breakpoint 1, reader" "  gdb stops in that process at its breakpoint"
	ok "  and the process prints its recorded sum" grep -qxF "$(grep '^reader ' rec.out)" run.out
else
	skip 3 "gdb is not installed"
fi

spool_run replay --path /dev/null s.trace
is_rc 1 "--path of a tree recording is refused"
like "$ERR" "--pid PID --gdb" "  saying what can be done instead"
done_testing
