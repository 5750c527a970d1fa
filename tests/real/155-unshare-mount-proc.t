#!/bin/bash
# SPDX-License-Identifier: MIT
# 155-unshare-mount-proc.t - util-linux's `unshare -p -f --mount-proc`
# running a program in a pid namespace with a /proc of its own: the
# program's image is exec'd there, where /proc/self and getpid agree on
# pid 1. Its agent took 1 for the pid spool sees: spool locks then waited
# for the host's pid 1 and never ended (killed after 60 s), and spool
# record listed the host's 94 processes as "still running" and called the
# trace incomplete for them. Now the agent compares its pid namespace with
# spool's (shm_ctl.host_pidns): in another, with a /proc that cannot name
# it as spool sees it, the image gets no process slot and its events are
# counted lost, said; both commands end with the program's output. Needs
# CAP_SYS_ADMIN (a skip without it).
. "$(dirname "$0")/lib.sh"
need_progs unshare
plan 6

P="$PROGS/lockcount"
if ! unshare -p -f --mount-proc true 2>/dev/null; then
	skip 6 "unshare -p -f --mount-proc needs CAP_SYS_ADMIN"
	done_testing
fi
native="$(unshare -p -f --mount-proc "$P" 2 1000 2>/dev/null)"
is "$native" "total=2000" "natively: the program's output"

timeout -k 5 60 "$SPOOL" locks -o l.trace -- unshare -p -f --mount-proc "$P" 2 1000 >l.out 2>l.err
RC=$?
check_sanitizer l.err "spool locks"
is "$RC $(grep -x 'total=[0-9]*' l.out)" "4 total=2000" \
	"spool locks ends (before: waited for the host's pid 1), the program's output, exit 4" ||
	diag "$(tail -n 5 l.err)"
like "$(cat l.err)" "l\\.trace is incomplete: [1-9][0-9]* events lost" \
	"  the image in the namespace: its events counted lost, said"

timeout -k 5 60 "$SPOOL" record -o r.trace -- unshare -p -f --mount-proc "$P" 2 1000 >r.out 2>r.err
RC=$?
check_sanitizer r.err "spool record"
ERR=$(cat r.err)
is "$RC $(cat r.out)" "4 total=2000" "spool record: the program's output, exit 4 (incomplete)" ||
	diag "$(tail -n 5 r.err)"
unlike "$ERR" "still running" "  no host process listed as still running (before: 94 of them)"
like "$ERR" "r\\.trace is incomplete: [1-9][0-9]* events lost" "  the loss said"

done_testing
