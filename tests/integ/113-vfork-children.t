#!/bin/bash
# SPDX-License-Identifier: MIT
# 113-vfork-children.t - a child started by vfork (dash runs every command of
# a script that way; so do make and posix_spawn) runs no fork handler, so the
# image it execs looked to the agent like the first process: `spool record --
# sh -c '/bin/date; /bin/true'` exited 0 without a word, `spool info` said
# nothing was lost, and the replay failed with "thread 0 has event 1 where 2
# was expected" (two processes' events in one thread's log). Now such a child
# is a child: the recording says the program forked, the replay refuses it
# with that reason, and the lock profile counts every process.
. "$(dirname "$0")/lib.sh"

plan 9

VF="$PROGS/vforkexec"

spool_run record -o vf.trace -- "$VF" 3 /bin/true
is_rc 0 "record of a program that vforks children exits with its status (0)"
is "$OUT" "children=3 ok=3" "  its output is its own"
like "$ERR" "forked" "  and spool says the program forked"
spool_run replay vf.trace
is_rc 1 "the replay refuses the recording"
like "$ERR" "forked" "  saying why: the program forked"
unlike "$ERR" "lost events|where [0-9]+ was expected" "  not a log that mixes two processes"

spool_run record -o sh.trace -- sh -c '/bin/true; /bin/true'
like "$ERR" "forked" "dash's children (vfork) are seen as children too"

spool_run locks -q -o locks.trace -- "$VF" 4 /bin/true
is_rc 0 "spool locks on the vforking program exits 0"
is "$(summary_lost)" 0 "  nothing lost"

done_testing
