#!/bin/bash
# SPDX-License-Identifier: MIT
# 112-threads-exit-unseen.t - a thread that ends without the agent seeing it
# (a raw SYS_exit: no pthread_exit, no TLS destructor) gives its ring back
# all the same: a later thread of the process finds its tid gone and hands
# the ring to spool, which drains and frees it. Before, such a ring stayed
# taken for the rest of the run, and with --max-threads 3 the third of 20
# such threads one after another found no ring (its events lost).
. "$(dirname "$0")/lib.sh"

plan 5

spool_run locks -q --max-threads 3 -- "$PROGS/rawexit" 20
is_rc 0 "rawexit 20 (threads leaving by SYS_exit) with --max-threads 3 exits 0"
is "$OUT" "threads=20" "  its output is its own"
is "$(summary_lost)" 0 "  nothing lost"
report_json spool.trace
is "$RC" 0 "  the report reads the trace"
is "$(lock_stat report.json raw_lock "$F_ACQ")" 20 "  raw_lock: once in each thread"

done_testing
