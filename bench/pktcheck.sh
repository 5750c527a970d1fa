#!/bin/bash
# SPDX-License-Identifier: MIT
# pktcheck.sh BUILD_DIR - what the collector's check of a ring packet's
# events (trace_pkt2_check, doc/trace-format.md "Packets in the ring") costs
# per event: bench/pktcheck.c times it over the stream files of a lock
# trace (bench_locks own 2 2000000, 11-byte events) and a probe trace
# (func:probe_leaf_add on probe_calls, 8-byte events), best of 20 rounds,
# beside the copy alone. Nothing asserted (`make bench` runs it).
#
# BENCH_SCALE=0.1 shrinks the workloads.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: bench/pktcheck.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../src" && pwd)
scale=${BENCH_SCALE:-1}
N=$(awk -v s="$scale" 'BEGIN { v = int(2000000 * s); print (v < 1000 ? 1000 : v) }')
work=$(mktemp -d /tmp/spool-bench-pktcheck.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$src" -o pktcheck "$here/pktcheck.c" \
	"$build"/src/trace/*.o "$build"/src/util/*.o -lzstd -ldw -lelf -lm -lpthread -lstdc++ ||
	exit 1
SPOOL_RING_PACKETS=1 "$build/spool" locks -q -o l.trace -- \
	"$build/tests/progs/bench_locks" own 2 "$N" >/dev/null || exit 1
SPOOL_RING_PACKETS=1 "$build/spool" probe -q -o p.trace -e func:probe_leaf_add -- \
	"$build/tests/progs/probe_calls" "$((N / 2))" >/dev/null || exit 1
for t in l p; do
	for s in "$t".trace/stream_*; do
		[ "$(stat -c %s "$s")" -gt 100000 ] || continue
		echo "$s: $(./pktcheck "$s" 20)"
	done
done
