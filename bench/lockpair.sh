#!/bin/bash
# SPDX-License-Identifier: MIT
# lockpair.sh BUILD_DIR [OTHER_BUILD_DIR] - what one uncontended
# pthread_mutex_lock + unlock pair costs under `spool locks`, two ways:
#
#   a) instructions (callgrind, when valgrind is installed): the program's
#      instructions per pair, native and under `spool locks` (the agent's
#      interposers, the event encoding, the ring), 200,000 pairs. Exact and
#      independent of the machine's load: the figure to compare builds by.
#   b) time: the loop timed inside the program (bench_locks
#      uncontended-timed 2,000,000) and the whole command (bench_locks own 2
#      2,000,000, wall clock), native and under spool, interleaved, best of
#      ROUNDS (default 10) rounds: ns added per pair.
#
# With OTHER_BUILD_DIR (e.g. a copy of build/ from before a change), each
# figure is given for both builds, measured in the same rounds. Nothing is
# asserted: this prints figures for doc/trace-format.md and the notes.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bench/lockpair.sh BUILD_DIR [OTHER_BUILD_DIR]" >&2
	exit 2
fi
builds=()
for b in "$@"; do
	b=$(cd "$b" && pwd) || exit 1
	[ -x "$b/spool" ] && [ -x "$b/tests/progs/bench_locks" ] || {
		echo "lockpair: $b: spool or tests/progs/bench_locks not built" >&2
		exit 1
	}
	builds+=("$b")
done
rounds=${ROUNDS:-10}
work=$(mktemp -d /tmp/spool-lockpair.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "lockpair: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
if command -v valgrind >/dev/null; then
	n=200000
	ir() { sed -nE 's/.*I[[:space:]]+refs:[[:space:]]+([0-9,]+).*/\1/p' "$1" | tr -d ,; }
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"${builds[0]}/tests/progs/bench_locks" uncontended $n 2>"$work/nat.err" >/dev/null
	nat=$(ir "$work/nat.err")
	echo "a) instructions per pair, $n pairs: native $((nat / n))"
	for b in "${builds[@]}"; do
		(cd "$work" && "$b/spool" locks -q -o "$work/cg" -- valgrind --tool=callgrind \
			--callgrind-out-file=/dev/null "$b/tests/progs/bench_locks" uncontended $n \
			2>"$work/sp.err" >/dev/null)
		sp=$(ir "$work/sp.err")
		rm -rf "$work/cg"
		echo "   spool locks ($b): $((sp / n)) (+$(((sp - nat) / n)))"
	done
fi

best() { sort -g | head -n 1; }
echo "b) ns per pair, best of $rounds interleaved rounds"
for ((i = 0; i < rounds; i++)); do
	"${builds[0]}/tests/progs/bench_locks" uncontended-timed 2000000 >>"$work/in.nat"
	t0=$(date +%s%N)
	"${builds[0]}/tests/progs/bench_locks" own 2 2000000
	echo $(($(date +%s%N) - t0)) >>"$work/wh.nat"
	for j in "${!builds[@]}"; do
		b=${builds[$j]}
		"$b/spool" locks -q -o "$work/t" -- "$b/tests/progs/bench_locks" \
			uncontended-timed 2000000 2>/dev/null >>"$work/in.$j"
		rm -rf "$work/t"
		t0=$(date +%s%N)
		"$b/spool" locks -q -o "$work/t" -- "$b/tests/progs/bench_locks" own 2 2000000 2>/dev/null
		echo $(($(date +%s%N) - t0)) >>"$work/wh.$j"
		rm -rf "$work/t"
	done
done
in_nat=$(best <"$work/in.nat")
wh_nat=$(best <"$work/wh.nat")
echo "   native: in-process $in_nat ns, whole command $((wh_nat / 1000000)) ms"
for j in "${!builds[@]}"; do
	in_sp=$(best <"$work/in.$j")
	wh_sp=$(best <"$work/wh.$j")
	awk -v b="${builds[$j]}" -v i="$in_sp" -v n="$in_nat" -v w="$wh_sp" -v wn="$wh_nat" 'BEGIN {
		printf "   spool locks (%s): in-process +%.1f ns; whole command %d ms, +%.1f ns per pair\n",
			b, i - n, w / 1e6, (w - wn) / 4e6 }'
done
echo "lockpair: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
