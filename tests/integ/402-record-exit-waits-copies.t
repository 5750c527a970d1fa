#!/bin/bash
# SPDX-License-Identifier: MIT
# 402-record-exit-waits-copies.t - a serial recording whose program exits
# while another of its threads waits for the run token (libgomp's idle
# workers: Debian's GraphicsMagick with OpenMP, tests/real/158): at its exit
# the program's agent waits for the snapshot copies still writing their
# images, holding the token; the waiting thread's watchdog called that
# "record stuck ... has not reached a switch point" once a copy took longer
# than --stuck-ms (a 50 MB image compressed under a load of 60: every
# GraphicsMagick recording), and spool killed the program (exit 137) after
# it had done all its work. SPOOL_TEST_SNAP_COPY_MS holds each copy that
# long after its image (3 s), as that load did.
. "$(dirname "$0")/lib.sh"

plan 4

P="$PROGS/rr_rawfutex_goto"

SPOOL_TEST_SNAP_COPY_MS=3000 spool_run record --snap-period 50 --stuck-ms 1000 -o l.trace -- "$P" 100 "" linger
is_rc 0 "record: exit 0 while its copies take 3 s each and --stuck-ms is 1000"
unlike "$ERR" "stuck" "no thread reported stuck"
like "$OUT" "done 100 rounds" "the program's whole output"
cp run.out rec.out
spool_run replay -q -o r.trace l.trace
ok "a replay: exit 0, the recording's output" bash -c "[ $RC = 0 ] && cmp -s run.out rec.out" || show_run
done_testing
