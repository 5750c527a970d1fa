#!/bin/bash
# SPDX-License-Identifier: MIT
# 354-rr-sevthread-many.t - more SIGEV_THREAD timers at once than the agent
# had slots for (doc/record.md "SIGEV_THREAD timers"): rr_sevmany makes 40
# one-shot timers whose functions append to a journal under a mutex. Sync
# mode runs each function in a notifier thread spool numbers; past 32
# timers they ran glibc's way, in threads spool could not number: record
# warned and the replay diverged. Now 256 such timers can exist at once.
. "$(dirname "$0")/lib.sh"

plan 4

P="$PROGS/rr_sevmany"

"$P" 40 >native.out 2>&1
like "$(cat native.out)" '^fired 40:( [0-9]+){40}$' "without spool: 40 timers fired"
spool_run record -q --mode sync -o s.trace -- "$P" 40
cp run.out s.rec
ok "sync: recorded, exit 0, 40 timers fired" bash -c "[ $RC = 0 ] && grep -Eq '^fired 40:' s.rec" || show_run
unlike "$ERR" 'could not number' "sync: every timer's function ran in a thread spool numbered"
replays_same 3 0 s.rec -q -o s.r.trace s.trace
is "$SAME" 3 "sync: 3 replays of 3 print the recorded journal and exit 0"
done_testing
