#!/bin/bash
# SPDX-License-Identifier: MIT
# 131-rr-create.t - a pthread_create that fails under record/replay
# (doc/record.md, "Threads"): tests/progs/rr_createfail.c makes the second
# of three creations fail with EAGAIN (a soft RLIMIT_AS just above what the
# process maps; an attribute asking for a 64 TiB stack) or EPERM (a seccomp
# filter that fails clone3 and clone, so the third fails too), or EAGAIN
# under RLIMIT_NPROC 1 for the user nobody, which the program becomes
# (as root only; the third fails too). In both
# modes the recording shows the failure, and three replays return the same
# error from the same call, print the recorded output (which depends on
# the interleaving of the threads that were created) and exit 0. A replay
# used to stop (serial mode: stuck, the failed call was not the switch
# point it was when recorded; a failure as the last creation: "bad thread
# number"). And more threads than 65,536 (70,000 short ones, two alive at a
# time, sync mode): the recording replays with the recorded output (a
# replay used to refuse it: "bad thread number 65536 in the recording").
. "$(dirname "$0")/lib.sh"

plan 18
T_TIMEOUT=120

# (nproc: the program becomes the user nobody, with RLIMIT_NPROC 1: root only)
for mode in serial sync; do
	for how in as stack seccomp nproc; do
		if [ "$how" = nproc ] && [ "$(id -u)" != 0 ]; then
			skip 2 "nproc: the program must start as root to become nobody"
			continue
		fi
		want='^create 1: Resource temporarily unavailable$'
		[ "$how" = seccomp ] && want='^create 1: Operation not permitted$'
		spool_run record -q --mode "$mode" -- "$PROGS/rr_createfail" "$how"
		cp run.out rec.out
		if [ "$RC" = 0 ] && grep -q "$want" rec.out && grep -q '^create 0: ok$' rec.out &&
			grep -q '^counter 3: ' rec.out; then
			pass "$mode $how: the recording shows the failed pthread_create"
		else
			fail "$mode $how: the recording shows the failed pthread_create"
			show_run
		fi
		replays_same 3 0 rec.out -q spool.trace
		is "$SAME" 3 "$mode $how: 3 replays fail the same call and print the recorded output"
	done
done
P="$PROGS/shortthreads-finst"
spool_run record -q --mode sync -o many.trace -- "$P" 70000 2
cp run.out many.out
if [ "$RC" = 0 ] && grep -q '^threads=70000 total=70000$' many.out; then
	pass "sync, 70,000 threads: recorded"
else
	fail "sync, 70,000 threads: recorded"
	show_run
fi
replays_same 1 0 many.out -q many.trace
is "$SAME" 1 "sync, 70,000 threads: the replay prints the recorded output"
done_testing
