#!/bin/bash
# SPDX-License-Identifier: MIT
# 349-locks-clone-creator-inside.t - spool locks of a thread of the
# program's own clone system call (on its creator's TLS, where spool keeps
# its thread state) whose every call comes while its creator is inside
# spool (tests/progs/clone_busy: SPOOL_TEST_HOLD, agent_testhold.c, holds
# the creator at a lock's first sight, busy, until the thread is done).
# Before, each of its calls saw a busy state and was taken for a re-entry:
# its 600 events were neither written nor counted, and spool said "0 lost",
# exit 0 (test 314's 1 run in ~100, made to happen every run). Now the
# agent asks the kernel whose the frame off the stack is, counts them lost
# in threads made by the program's own clone, and says so.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/clone_busy"
plan 8

if [ "$(uname -m)" != x86_64 ]; then
	skip 8 "the program's own clone system call is x86-64 assembly"
	done_testing
fi

HOLD="$PWD/hold"
native="$("$PROG" "$HOLD" 2>native.err)"
is "$? $native" "0 counter ok" "natively: the thread's locking adds up"
like "$(cat native.err)" "after its creator's lock" "  natively nothing holds the creator"

SPOOL_TEST_HOLD="$HOLD" timeout -k 5 60 "$SPOOL" locks -o l.trace -- "$PROG" "$HOLD" >l.out 2>l.err
RC=$?
check_sanitizer l.err "spool locks"
ERR=$(cat l.err)
like "$ERR" "600 calls, all while its creator was inside spool" \
	"spool locks: the thread's 600 calls all came while its creator was held inside spool"
is "$RC $(cat l.out)" "4 counter ok" "  the program's output; exit 4 (events lost, said)" ||
	diag "$ERR"
like "$ERR" "l\\.trace is incomplete: 600 events lost \\(600 in threads made by the program's own clone\\)" \
	"  all 600 counted lost, in threads made by the program's own clone"
like "$ERR" "[0-9]+ lock events, [0-9]+ thread events, 600 lost" "  the summary line says the same"
like "$ERR" "spool found 1 of these threads running on its creator's thread state" \
	"  spool says it found the thread it did not see made"
spool_run info l.trace
like "$OUT" "^lost: 600 events" "spool info: lost: 600 events"

done_testing
