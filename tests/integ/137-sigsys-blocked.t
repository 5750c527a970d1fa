#!/bin/bash
# SPDX-License-Identifier: MIT
# 137-sigsys-blocked.t - a thread that blocks every signal (sigfillset, as
# nginx's thread-pool threads do) and then makes the dynamic loader open a
# library: ld.so's system calls come from outside libc's text, so syscall
# user dispatch raises SIGSYS for each, and a SIGSYS the kernel finds
# blocked kills the process (nginx recorded was killed by SIGSYS, status
# 159, when its SIGQUIT handler ran). The agent keeps SIGSYS out of the
# kernel's masks while dispatch is on, as it keeps SIGTRAP for probes: the
# program still sees it blocked in its own mask. Both modes, recorded and
# replayed.
. "$(dirname "$0")/lib.sh"
plan 7

P="$PROGS/rr_blockall"
"$P" libgcc_s.so.1 >native.out 2>&1
like "$(cat native.out)" "dlopen libgcc_s.so.1: ok; SIGSYS blocked: 1" \
	"natively the thread blocks SIGSYS and loads libgcc_s"
for m in serial sync; do
	spool_run record --mode "$m" -o "r.$m" -- "$P" libgcc_s.so.1
	is_rc 0 "$m: recorded, not killed by SIGSYS (159)"
	ok "$m: the output is the native one (SIGSYS and SIGQUIT blocked in the thread's own mask)" \
		cmp -s run.out native.out
	cp run.out "rec.$m.out"
	replays_same 2 0 "rec.$m.out" -o rep "r.$m"
	is "$SAME" 2 "$m: 2 replays of 2 exit 0 with the recorded output"
done
done_testing
