#!/bin/bash
# SPDX-License-Identifier: MIT
# 161-gpg-tsc-replay.t - gpg --gen-random 2 32, the strength gpg takes for
# keys (GCRY_VERY_STRONG_RANDOM): libgcrypt 1.10 then also runs its jitter
# entropy collector, which times its own loops with rdtsc (jent_get_nstime),
# where leaf 1 of cpuid says the CPU has a time stamp counter. spool does
# not record rdtsc (doc/record.md "The CPU's own inputs": a trap costs
# about 100 times a clock read), so each replay mixed in other timings and
# stopped at the write of other bytes (status 3). Under CPUID faulting the
# agent now answers that there is no time stamp counter (as it hides rdrand
# and rdseed): libgcrypt leaves the collector out, and each replay prints
# the recorded bytes and exits 0, in both modes. spool info says so.
. "$(dirname "$0")/lib.sh"
need_progs gpg
if [ "$(uname -m)" != x86_64 ] || ! grep -qw cpuid_fault /proc/cpuinfo; then
	echo "1..0 # SKIP no CPUID faulting on this machine (x86-64 cpuid_fault)"
	exit 0
fi
plan 6

fresh_home() { rm -rf gh && mkdir -m 700 gh; }

for mode in serial sync; do
	fresh_home
	spool_run record -q --mode "$mode" -o "$mode.trace" -- gpg --batch --homedir "$PWD/gh" --gen-random 2 32
	is_rc 0 "$mode: record of gpg --gen-random 2 32 exits 0"
	cp run.out "$mode.out"
	spool_run info "$mode.trace"
	like "$OUT" "cpuid: recorded, rdrand and rdseed hidden from the program, and the time stamp counter" \
		"  spool info says the time stamp counter was hidden"
	same=0
	for i in 1 2; do
		fresh_home
		spool_run replay -q "$mode.trace"
		[ "$RC" = 0 ] && cmp -s run.out "$mode.out" && same=$((same + 1)) || show_run
	done
	is "$same" 2 "$mode: 2 replays of 2 print the recorded 32 bytes and exit 0"
done

done_testing
