#!/bin/bash
# SPDX-License-Identifier: MIT
# 157-xz-threads-replay.t - Debian's xz -T2 (liblzma's multithreaded
# encoder: a pool of worker threads, a mutex and condition variables between
# them and the main thread, 1 MiB blocks) recorded and replayed in serial
# and in sync mode: the recording writes xz's own output (the .xz of the
# same input made without spool), and 3 replays of each write it byte for
# byte and exit 0. Input: 6.9 MB of generated text, so both workers
# compress several blocks.
. "$(dirname "$0")/lib.sh"
need_progs xz
plan 8

seq 1 1000000 >in.txt
ARGS=(-T2 --block-size=1MiB -c in.txt)
xz "${ARGS[@]}" >native.xz
xz -d -c native.xz | cmp -s - in.txt
is "$?" 0 "xz alone: compressed, decompressed back to the input"

for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- xz "${ARGS[@]}"
	cp run.out "$mode.rec.xz"
	ok "$mode: record exits 0 with xz's own output" \
		bash -c "[ '$RC' = 0 ] && cmp -s $mode.rec.xz native.xz" || show_run
	is "$(info_lost "$mode.trace")" 0 "$mode: spool info says 0 events lost"
	replays_same 3 0 "$mode.rec.xz" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 write the recorded output and exit 0"
done
ok "the replayed output decompresses to the input" bash -c "xz -d -c run.out | cmp -s - in.txt"
done_testing
