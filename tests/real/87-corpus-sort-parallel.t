#!/bin/bash
# SPDX-License-Identifier: MIT
# 87-corpus-sort-parallel.t - the record/replay corpus: coreutils' sort
# --parallel=2 on 300,000 lines (two sorting threads and a merge), the
# input a file in its directory, the output written with -o; recorded in
# serial and in sync mode, 3 replays each. sort's merge queue orders its
# nodes by counts (compare_nodes: nlo + nhi) that the merging threads
# change under each node's own lock, not the queue's: a data race, so
# which node a thread takes next may differ in a sync replay, which then
# stops at a reported divergence (a lock on another object); serial mode
# replays it exactly.
. "$(dirname "$0")/lib.sh"
need_progs sort
plan 4

mkdir app
"$REAL_PY" -c '
import random
r = random.Random(7)
with open("app/in.txt", "w") as f:
    for i in range(300000):
        f.write("%08x %d\n" % (r.getrandbits(32), i))'
rr_corpus sort-parallel serial --dir app -- sort --parallel=2 -o out.txt in.txt
rr_corpus sort-parallel sync --dir app \
	--may-diverge "a data race in sort's merge queue" -- sort --parallel=2 -o out.txt in.txt
done_testing
