#!/bin/bash
# SPDX-License-Identifier: MIT
# corpus.sh BUILD_DIR - what spool record and spool replay cost on three
# programs of the record/replay corpus (tests/real/82-95), as ratios of
# wall-clock times against the native run, measured in one run:
#   a) sqlite3 (Debian), a script on stdin: 60,000 rows into an in-memory
#      database, PRAGMA threads=2 (its sorter's worker threads), an index,
#      a sort
#   b) sort --parallel=2 (coreutils) on 400,000 lines from a file, serial
#      mode only: its merge queue compares counts other threads change
#      under other locks (a data race), so a sync replay may stop at a
#      reported divergence (tests/real/87-corpus-sort-parallel.t)
#   c) git pack-objects --threads=2 (Debian's git) packing a repository
#      made here (600 files, 3 commits), the pack on stdout
#   d) x264 (Debian) --threads 2 encoding 60 frames of 320x240 made here
#      (frame threads; the stream on stdout), serial mode only: its thread
#      pool reads its exit flag without the lock (a data race), which sync
#      mode does not order, and a sync replay can stop there
# each recorded in serial and in sync mode; "replay" replays that
# recording (its replay image written by a first, untimed replay: doc/
# record.md). Each row runs native, record and replay in turn
# BENCH_ROUNDS times (default 3) and prints the best and the median
# ratios (this VM is noisy), and whether the replays printed what the
# recording did. Nothing is asserted. BENCH_SCALE=0.1 shrinks the
# workloads.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: bench/corpus.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
spool="$build/spool"
if [ ! -x "$spool" ]; then
	echo "bench: $spool is not built (make all)" >&2
	exit 1
fi
scale=${BENCH_SCALE:-1}
scaled() { awk -v n="$1" -v s="$scale" 'BEGIN { v = int(n * s); print (v < 1 ? 1 : v) }'; }
ROUNDS=${BENCH_ROUNDS:-3}

work=$(mktemp -d /tmp/spool-bench-corpus.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The programs run in run/ and the traces go to t/: python3 lists its
# script's directory when it imports, and a trace there would be a
# difference between the recording and its replay.
mkdir -p "$work/run" "$work/t"
cd "$work/run" || exit 1
T="$work/t"

now() { date +%s%N; }
# once STDIN NAME CMD...: one run, its output in NAME.out; appends its wall
# time (ns) to NAME.w
once() {
	local in="$1" name="$2" t0 t1
	shift 2
	t0=$(now)
	"$@" <"$in" >"$T/$name.out" 2>/dev/null
	t1=$(now)
	echo $((t1 - t0)) >>"$T/$name.w"
}
best() { sort -n "$1" | head -n 1; }
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 1) }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.0f ms", a / 1e6 }'; }

# row NAME STDIN CMD...: native, then for each mode (MODES, default both)
# record and replay, in turn, ROUNDS times.
MODES="serial sync"
row() {
	local name="$1" in="$2" m r same
	shift 2
	rm -rf "${T:?}"/*
	for m in $MODES; do
		"$spool" record --mode "$m" -q -o "$T/rec.$m" -- "$@" <"$in" >"$T/rec.$m.ref" 2>/dev/null
		"$spool" replay -q -o "$T/rep.trace" "$T/rec.$m" >/dev/null 2>&1 # writes the image
	done
	for ((r = 0; r < ROUNDS; r++)); do
		once "$in" nat "$@"
		for m in $MODES; do
			once "$in" "rec-$m" "$spool" record --mode "$m" -q -o "$T/rec2.trace" -- "$@"
			once "$in" "rep-$m" "$spool" replay -q -o "$T/rep.trace" "$T/rec.$m"
		done
	done
	for m in $MODES; do
		same=no
		cmp -s "$T/rep-$m.out" "$T/rec.$m.ref" && same=yes
		printf "%-34s %-6s native %7s  record %6s (median %6s)  replay %6s (median %6s)  same output: %s\n" \
			"$name" "$m" "$(ms "$(best "$T/nat.w")")" \
			"$(ratio "$(best "$T/rec-$m.w")" "$(best "$T/nat.w")")" \
			"$(ratio "$(med "$T/rec-$m.w")" "$(med "$T/nat.w")")" \
			"$(ratio "$(best "$T/rep-$m.w")" "$(best "$T/nat.w")")" \
			"$(ratio "$(med "$T/rep-$m.w")" "$(med "$T/nat.w")")" "$same"
	done
}

echo "spool record / spool replay on corpus programs, slowdown against native"
echo "(wall clock of the whole command; best, then median of $ROUNDS rounds in turn)"

if command -v sqlite3 >/dev/null; then
	N=$(scaled 60000)
	cat >script.sql <<SQL
PRAGMA threads=2;
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $N)
INSERT INTO t SELECT (x * 7919) % 60013, hex(randomblob(8)) || x FROM c;
CREATE INDEX ti ON t(a, b);
SELECT count(*), sum(a) FROM t;
SELECT a, b FROM t ORDER BY b LIMIT 5;
SQL
	row "sqlite3, $N rows, threads=2" script.sql sqlite3 :memory:
else
	echo "sqlite3: not installed, skipped"
fi

N=$(scaled 400000)
python3 -c "
import random
r = random.Random(7)
with open('lines.txt', 'w') as f:
    for i in range($N):
        f.write('%08x %d\n' % (r.getrandbits(32), i))"
MODES=serial row "sort --parallel=2, $N lines" /dev/null sort --parallel=2 -S 16M lines.txt

if command -v git >/dev/null; then
	mkdir repo
	(
		cd repo || exit 1
		git init -q . && git config user.email b@example.com && git config user.name b
		for c in 1 2 3; do
			for i in $(seq 1 "$(scaled 600)"); do
				printf 'file %d commit %d\n%s\n' "$i" "$c" "$(seq "$i" $((i + 60 * c)) | tr '\n' ' ')" >"f$i.txt"
			done
			git add -A && git commit -qm "commit $c"
		done
		git rev-list --objects --all >../objects.list
	)
	cd repo || exit 1
	row "git pack-objects --threads=2" ../objects.list git pack-objects --threads=2 -q --stdout
	cd .. || exit 1
else
	echo "git: not installed, skipped"
fi

if command -v x264 >/dev/null; then
	N=$(scaled 60)
	python3 -c "
import math
w, h = 320, 240
with open('in.yuv', 'wb') as f:
    for n in range($N):
        y = bytes((int(128 + 100 * math.sin((x + 3 * n) / 9.0) * math.cos((r + n) / 7.0)) & 255)
                  for r in range(h) for x in range(w))
        f.write(y + bytes([128]) * (w * h // 2))"
	MODES=serial row "x264 --threads 2, $N frames 320x240" /dev/null x264 --threads 2 --input-res 320x240 \
		--fps 25 --preset fast -o - in.yuv
else
	echo "x264: not installed, skipped"
fi
