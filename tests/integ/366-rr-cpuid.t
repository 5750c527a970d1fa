#!/bin/bash
# SPDX-License-Identifier: MIT
# 366-rr-cpuid.t - the CPU's own inputs (issue 13, doc/record.md "The CPU's
# own inputs"): under spool record and spool replay the agent turns CPUID
# faulting on, answers the program's cpuid with rdrand and rdseed hidden
# and records the answers; a replay gives the recorded ones. rr_cpuid reads
# leaves 0, 1 and 7 and uses rdrand when the CPU has it: recorded, it says
# rdrand is hidden and the replays print the same lines. `rr_cpuid segv`:
# the program's own SIGSEGV handler (a real fault left with siglongjmp) and
# SIGSEGV blocked around a cpuid keep working. With SPOOL_NO_CPUID (as where
# the kernel or CPU refuses faulting, and as spool did before) record says
# so, the program finds rdrand and uses it, and the replay stops at the
# write of other bytes (status 3). The time stamp counter (leaf 1 edx bit 4)
# is hidden too: rdtsc is not recorded, and libgcrypt's jitter entropy
# collector reads it where the bit is set (tests/real/161).
. "$(dirname "$0")/lib.sh"

if [ "$(uname -m)" != x86_64 ] || ! grep -qw cpuid_fault /proc/cpuinfo; then
	echo "1..0 # SKIP no CPUID faulting on this machine (x86-64 cpuid_fault)"
	exit 0
fi
plan 25

P="$PROGS/rr_cpuid"
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P"
	is_rc 0 "$mode: record of rr_cpuid exits 0"
	cp run.out "$mode.out"
	like "$OUT" "rdrand: hidden" "  the program finds no rdrand"
	like "$OUT" "rdseed: hidden" "  nor rdseed"
	like "$OUT" "tsc: hidden" "  nor the time stamp counter (rdtsc is not recorded)"
	unlike "$ERR" "CPUID faulting is not available" "  and record does not warn"
	spool_run info "$mode.trace"
	like "$OUT" "cpuid: recorded, rdrand and rdseed hidden" "  spool info says rdrand was hidden"
	replays_same 2 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 print the recorded lines"

	spool_run record -q --mode "$mode" -o "$mode-segv.trace" -- "$P" segv
	is_rc 0 "$mode: record of rr_cpuid segv exits 0"
	cp run.out "$mode-segv.out"
	is "$OUT" "handler kept: yes
cpuid with SIGSEGV blocked: rdrand hidden
SIGSEGV blocked in the mask: yes
fault caught by the program's handler: 1
cpuid after the fault: rdrand hidden" "  its SIGSEGV handler, its mask and its cpuid work"
	replays_same 2 0 "$mode-segv.out" -q "$mode-segv.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 of rr_cpuid segv print the recorded lines"
done

# Without faulting: what spool did before, and what a machine without it gets.
SPOOL_NO_CPUID=1 spool_run record -q -o no.trace -- "$P"
cp run.out no.out
is_rc 0 "SPOOL_NO_CPUID: record exits 0"
like "$ERR" "CPUID faulting is not available here" "  saying the cpuid instructions are not recorded"
spool_run info no.trace
like "$OUT" "cpuid: not recorded, rdrand and rdseed not hidden" "  spool info says so too"
like "$(cat no.out)" "tsc: present" "  and the program finds the time stamp counter"
if grep -qw rdrand /proc/cpuinfo; then
	spool_run replay -q no.trace
	is_rc 3 "  rdrand used: the replay stops at the write of other bytes (status 3)"
else
	pass "  (this CPU has no rdrand: nothing differs)"
fi

done_testing
