#!/bin/bash
# SPDX-License-Identifier: MIT
# 113-vfork-children.t - a child started by vfork (dash runs every command of
# a script that way; so do make and posix_spawn) runs no fork handler, so the
# image it execs looked to the agent like the first process: `spool record --
# sh -c '/bin/date; /bin/true'` exited 0 without a word, `spool info` said
# nothing was lost, and the replay failed with "thread 0 has event 1 where 2
# was expected" (two processes' events in one thread's log). Then such a
# child was a child, and the replay refused the recording; now every
# process has its own recording (issue 13, 133-136), the replay replays
# them all, and the lock profile counts every process.
. "$(dirname "$0")/lib.sh"

plan 9

VF="$PROGS/vforkexec"

spool_run record -o vf.trace -- "$VF" 3 /bin/true
is_rc 0 "record of a program that vforks children exits with its status (0)"
is "$OUT" "children=3 ok=3" "  its output is its own"
like "$ERR" "recorded .*7 processes" "  and spool says it recorded 7 processes (3 children, each before and after its exec)"
spool_run replay vf.trace
is_rc 0 "the replay replays them"
is "$OUT" "children=3 ok=3" "  with the recorded output"
unlike "$ERR" "lost events|where [0-9]+ was expected" "  not a log that mixes two processes"

spool_run record -o sh.trace -- sh -c '/bin/true; /bin/true'
like "$ERR" "recorded .*5 processes" "dash's children (vfork) are recorded as children too"

spool_run locks -q -o locks.trace -- "$VF" 4 /bin/true
is_rc 0 "spool locks on the vforking program exits 0"
is "$(summary_lost)" 0 "  nothing lost"

done_testing
