#!/bin/bash
# SPDX-License-Identifier: MIT
# 138-gpg-rdrand-replay.t - gpg --gen-random 1 32: libgcrypt's random bytes
# come from the system's (getrandom), mixed with what its fast poll gathers
# at each read of its pool: the CPU's rdrand where the CPU has it,
# getrusage(RUSAGE_SELF), clock(), gettimeofday, time and the pid. First
# the replay printed other random bytes with status 0 (a wrong replay
# nobody was told of); then the write check stopped it at the write of
# other bytes (status 3). Record and replay hide rdrand and rdseed under
# CPUID faulting (tests/integ/366), and since getrusage, times and clock()
# are recorded too (tests/integ/408, doc/record.md "What is recorded") each
# replay prints the recorded bytes and exits 0, in both modes, on a CPU with
# rdrand as on one without. (This strength never runs libgcrypt's jitter
# entropy collector, whose rdtsc is not recorded: tests/real/161 runs the
# strength that does.)
. "$(dirname "$0")/lib.sh"
need_progs gpg
plan 6

# (gpg makes files in its home: each run starts from an empty one, as the
# recording did, so the replay sees the files the recording saw)
fresh_home() { rm -rf gh && mkdir -m 700 gh; }
if grep -qw rdrand /proc/cpuinfo; then rdrand=1; else rdrand=0; fi
diag "this CPU has rdrand: $rdrand (hidden from the program where it has cpuid_fault)"

for mode in serial sync; do
	fresh_home
	spool_run record -q --mode "$mode" -o "$mode.trace" -- gpg --batch --homedir "$PWD/gh" --gen-random 1 32
	is_rc 0 "$mode: record of gpg --gen-random 1 32 exits 0"
	cp run.out "$mode.out"
	"$SPOOL" replay --dump-schedule "$mode.trace" >dump.out 2>/dev/null
	ok "  libgcrypt's getrusage is in the log (call 89)" grep -q ' call 89 fd 0 result 0 ' dump.out
	same=0
	for i in 1 2; do
		fresh_home
		spool_run replay -q "$mode.trace"
		[ "$RC" = 0 ] && cmp -s run.out "$mode.out" && same=$((same + 1)) || show_run
	done
	is "$same" 2 "$mode: 2 replays of 2 print the recorded 32 bytes and exit 0"
done

done_testing
