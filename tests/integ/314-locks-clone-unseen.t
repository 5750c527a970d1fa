#!/bin/bash
# SPDX-License-Identifier: MIT
# 314-locks-clone-unseen.t - spool locks of a program whose threads are all
# made with its own clone system call (tests/progs/clone_locks ROUNDS raw):
# spool sees none of them being made (no clone() wrapper on that path, no
# syscall user dispatch outside record and replay), and they run on their
# creator's TLS, where spool keeps its thread state. Before, their lock
# events went into their creator's ring (one ring, two producers) as its
# own: the main thread, which takes no lock, showed 1,800 acquisitions, and
# spool said "0 lost". Now the agent finds such a thread by its stack (a
# frame off its state's stack: the kernel says whose it is) the first time
# it enters spool, counts it and keeps its events out: each one is counted
# lost "in threads made by the program's own clone", the same in the run's
# line, spool info and spool report, and spool says what it did not see.
# The program's output is never changed.
. "$(dirname "$0")/lib.sh"

PROG="$CL_PROG"
ROUNDS=10
CALLS=$CL_CALLS
plan 11

if [ "$(uname -m)" != x86_64 ]; then
	skip 11 "the program's own clone system call is x86-64 assembly"
	done_testing
fi

clone_locks_native $ROUNDS raw
num_cmp "${made:-0}" -gt 0 "  it made $made threads with its own clone system call"


timeout -k 5 120 "$SPOOL" locks -o l.trace -- "$PROG" $ROUNDS raw >l.out 2>l.err
RC=$?
check_sanitizer l.err "spool locks"
ERR=$(cat l.err)
is "$RC $(echo $(cat l.out))" "4 $native" "spool locks: the program's output; exit 4 (events lost, said)" ||
	diag "$ERR"
want=$((made * CALLS * 2))
tot=$(lost_total l.err)
# (About 1 run in 100 under load, one clone thread's 600 events were
# neither written nor counted: it called in while its creator was inside
# spool, busy; tests/integ/349 makes that happen every run.)
ok "  every lock and unlock of theirs ($want) counted lost, in threads made by the program's own clone" \
	grep -Eq "l\\.trace is incomplete: $want events lost \\($want in threads made by the program's own clone\\)" l.err ||
	diag "$(grep -E 'lost|clone' l.err)"
ok "  the summary line says the same number" \
	grep -Eq "[0-9,]+ lock events, [0-9,]+ thread events, $(thousands "$want") lost" l.err
like "$ERR" "spool found 1 of these threads running on its creator's thread state without having seen it made \\(the program's own clone system call.*more may have run unseen" \
	"  spool says it found one it did not see made, and that more may have run"
clone_locks_lost l.trace "$tot" $ROUNDS
is "$(json l.json "[t[\"acquisitions\"] for t in d[\"threads\"] if t[\"tid\"] == t[\"pid\"]]")" 0 \
	"  the main thread, which takes no lock, has none (theirs are not written as its own)"
spool_run report --locks l.trace
like "$OUT$ERR" "$tot events lost \\($tot in threads made by the program's own clone\\)" \
	"spool report --locks: the same words"

done_testing
