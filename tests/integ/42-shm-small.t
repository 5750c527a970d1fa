#!/bin/bash
# SPDX-License-Identifier: MIT
# 42-shm-small.t - spool takes little of the program's limits: the agent
# maps only the head of the shared region and the ring of each thread that
# records (doc/locks.md states how much), not the whole region. Before, it
# mapped 2.15 GB into every program, so under `ulimit -v 262144` a program
# that can allocate 252 MB alone got nothing (and spool could not even
# create the region). Of the descriptor limit it takes one.
. "$(dirname "$0")/lib.sh"

plan 8

P="$PROGS/as_hog"
LIMIT_KB=262144
# What doc/locks.md promises a one-thread program keeps: its limit minus
# 6 MiB (the agent's library, the region's head, one 2 MiB ring).
SLACK_MB=6

# Descriptors: the region's one, nothing else of spool's reaches the program.
alone="$(ulimit -n 256 && "$PROGS/fd_hog")"
(
	ulimit -n 256
	spool_run locks -q -- "$PROGS/fd_hog"
	echo "$RC" >rc.txt
)
RC="$(cat rc.txt)"
OUT="$(cat run.out)"
is_rc 0 "under ulimit -n 256 a program that opens descriptors until it cannot runs under spool"
is "$OUT" "fds=$((${alone#fds=} - 1))" "  it opens one fewer than alone ($alone): the region's descriptor"

if [ "$SPOOL_ASAN" = 1 ]; then
	skip 6 "AddressSanitizer's shadow memory does not fit under ulimit -v"
	done_testing
fi

# The most the program allocates alone under the limit (2 MB steps).
plain_max=0
for ((mb = 256; mb >= 200; mb -= 2)); do
	if (ulimit -v "$LIMIT_KB" && "$P" "$mb") >/dev/null 2>&1; then
		plain_max=$mb
		break
	fi
done
num_cmp "$plain_max" -gt 0 "alone under ulimit -v $LIMIT_KB, as_hog allocates $plain_max MB"

want=240
(
	ulimit -v "$LIMIT_KB"
	spool_run locks -q -- "$P" "$want"
	echo "$RC" >rc.txt
)
RC="$(cat rc.txt)"
OUT="$(cat run.out)"
ERR="$(cat run.err)"
is_rc 0 "under spool locks and the same limit, a program allocating $want MB runs"
is "$OUT" "got=$want" "  its allocation succeeds"
is "$(summary_events)" 2 "  and its lock is traced (the agent did not give up for lack of room)"

want=$((plain_max - SLACK_MB))
(
	ulimit -v "$LIMIT_KB"
	spool_run locks -q -- "$P" "$want"
	echo "$RC" >rc.txt
)
RC="$(cat rc.txt)"
OUT="$(cat run.out)"
is "$OUT" "got=$want" "under spool it keeps all but ${SLACK_MB} MB of what it had: $want MB"
is_rc 0 "  and exits 0"

done_testing
