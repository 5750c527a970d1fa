#!/bin/bash
# SPDX-License-Identifier: MIT
# 119-openssl-rand-replay.t - openssl rand -hex 16, recorded and replayed in
# both modes: the replays print the recorded random bytes (OpenSSL 3 seeds
# from getrandom, which spool records). Where the machine has CPUID
# faulting, spool info says the recording hid rdrand and rdseed
# (doc/record.md "The CPU's own inputs"; libcrypto's own cpuid runs in its
# constructor, before the agent's, so it saw the real CPU).
. "$(dirname "$0")/lib.sh"
need_progs openssl
plan 8

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- openssl rand -hex 16
	is_rc 0 "$mode: record of openssl rand -hex 16 exits 0"
	like "$OUT" "^[0-9a-f]{32}$" "  it prints 16 random bytes"
	cp run.out "$mode.out"
	replays_same 2 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 print the recorded bytes"
	spool_run info "$mode.trace"
	if [ "$(uname -m)" = x86_64 ] && grep -qw cpuid_fault /proc/cpuinfo; then
		like "$OUT" "cpuid: recorded, rdrand and rdseed hidden" "  spool info: rdrand and rdseed were hidden"
	else
		like "$OUT" "cpuid: not recorded" "  spool info: no CPUID faulting here, nothing hidden"
	fi
done

done_testing
