#!/bin/bash
# SPDX-License-Identifier: MIT
# 135-rr-spawn.t - children started without a fork the agent sees (issue
# 13): posix_spawnp (glibc's clone(CLONE_VM|CLONE_VFORK) and exec), and
# system() and popen(), which glibc spawns internally. Each spawned image
# takes its own number and recording; a replayed image finds its recording
# as the next one its parent spawned. 3 replays of 3 print the recorded
# pids, times and statuses, in both modes. Then vfork: dash and make start
# their commands with it; while recording it runs as fork (113 refused
# these recordings before).
. "$(dirname "$0")/lib.sh"

plan 7

for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- "$PROGS/rr_spawn"
	is_rc 0 "$mode: record of posix_spawnp, system and popen exits 0"
	cp run.out "$mode.out"
	like "$OUT" "posix_spawnp started [0-9]+, exited 7" "  the spawned shell's status came back"
	replays_same 3 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recorded output"
done

spool_run record -o vf.trace -- "$PROGS/vforkexec" 3 /bin/true
cp run.out vf.out
replays_same 2 0 vf.out -q vf.trace
is "$SAME" 2 "a program that vforks its children replays 2 times of 2"

done_testing
