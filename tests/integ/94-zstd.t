#!/bin/bash
# SPDX-License-Identifier: MIT
# 94-zstd.t - zstd -T2 from Debian (a pool of compression threads fed
# through condition variables) recorded in sync and in serial mode and
# replayed twice each: the compressed output byte for byte, and it
# decompresses to the input.
. "$(dirname "$0")/lib.sh"

if ! command -v zstd >/dev/null; then
	plan 1
	skip 1 "zstd not installed (scripts/deps.sh installs it)"
	done_testing
fi
plan 8

head -c 4000000 /dev/urandom | base64 >data
for mode in sync serial; do
	RUN_STDIN=data spool_run record -q --mode "$mode" -o "$mode.trace" -- zstd -T2 -3 -c
	is_rc 0 "$mode: record zstd -T2"
	cp run.out "$mode.zst"
	ok "$mode: the recorded output decompresses to the input" \
		bash -c "zstd -dc $mode.zst | cmp -s - data"
	replays_same 2 0 "$mode.zst" -q "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 write the recorded output byte for byte"
	"$SPOOL" replay --dump-schedule "$mode.trace" >sched.txt 2>/dev/null
	num_cmp "$(grep -c '^input ' sched.txt)" -ge 1 "$mode: the input was recorded"
done
done_testing
