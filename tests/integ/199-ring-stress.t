#!/bin/bash
# SPDX-License-Identifier: MIT
# 199-ring-stress.t - the per-thread ring's publication (fill, release head;
# acquire head, copy, release tail) stressed natively: producer threads
# write records as the agent does while the collector's own drain code
# reads them, through thousands of wrap-arounds of 4 KiB rings; every record
# must come back intact, in order, once. The same program runs on aarch64
# under make check-arm64, where a missing barrier would show
# (tests/arm64/ring_stress.c).
. "$(dirname "$0")/lib.sh"

plan 3

RING="$SPOOL_BUILD/tests/ring_stress"
if [ ! -x "$RING" ]; then
	skip 3 "$RING is not built (make unit-bins)"
	done_testing
fi
out="$(timeout 300 "$RING" 3 200000 2>&1)"
is "$?" 0 "3 producers: every record intact and in order"
like "$out" '600000 records, 0 bad, 0 lost' "  all 600000 came back, none lost"
out="$(timeout 300 "$RING" 8 50000 2>&1)"
like "$out" '400000 records, 0 bad, 0 lost' "8 producers (more than the CPUs): the same"
check_sanitizer <(echo "$out") "ring_stress"
done_testing
