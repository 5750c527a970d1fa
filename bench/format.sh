#!/bin/bash
# SPDX-License-Identifier: MIT
# format.sh BUILD_DIR - trace format 2 against format 1 (doc/trace-format.md),
# measured in one run, nothing asserted (`make bench` runs it):
#
#   a) bytes per event of each class (bench/trace_classes.py walks the
#      streams): lock events (spool locks), function entries and exits
#      (spool path on an -finstrument-functions loop), probe entries and
#      exits (spool probe -e func:), with the format 1 size beside it
#   b) 2 threads x 2,000,000 uncontended lock/unlock pairs on 2 CPUs
#      (bench_locks own 2 2000000): the trace's size and the wall clock of
#      the whole `spool locks` command against native, format 1
#      (SPOOL_TRACE_FORMAT=1, the writer of before format 2) and format 2,
#      best of 3 runs each
#
# BENCH_SCALE=0.1 shrinks the workloads.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: bench/format.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
spool="$build/spool"
bench="$build/tests/progs/bench_locks"
calls="$build/tests/progs/probe_calls"
for f in "$spool" "$bench" "$calls"; do
	if [ ! -x "$f" ]; then
		echo "bench: $f is not built (make all progs)" >&2
		exit 1
	fi
done
scale=${BENCH_SCALE:-1}
N=$(awk -v s="$scale" 'BEGIN { v = int(2000000 * s); print (v < 1000 ? 1000 : v) }')
work=$(mktemp -d /tmp/spool-bench-format.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

now_ns() { date +%s%N; }
# best3 CMD...: the best wall time of 3 runs, in ns ("fail" if one fails)
best3() {
	local best="" t0 t1
	for _ in 1 2 3; do
		rm -rf t t.old
		t0=$(now_ns)
		"$@" >/dev/null 2>err
		# 4: the trace is incomplete (rings full on a busy machine):
		# timed all the same, its losses printed from the trace below
		case $? in 0 | 4) ;; *) echo fail; return ;; esac
		t1=$(now_ns)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then best=$((t1 - t0)); fi
	done
	echo "$best"
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
trace_bytes() { cat "$1"/stream_* 2>/dev/null | wc -c; }

# --- a) bytes per event ------------------------------------------------------
cat >loop.c <<'EOF2'
volatile long sink;
__attribute__((noinline)) void tiny(long i) { sink += i; }
int main(void) { for (long i = 0; i < 100000; i++) tiny(i); return 0; }
EOF2
gcc -O2 -finstrument-functions -o loop loop.c || exit 1

echo "bench: a) bytes per event of each class" >&2
# events: the run summary's count of a trace
events() { sed -nE 's/^events=([0-9]+)$/\1/p' "$1/.spool/summary"; }
for fmt in 1 2; do
	rm -rf "l$fmt" "p$fmt" "f$fmt"
	SPOOL_TRACE_FORMAT=$fmt "$spool" locks -q -o "l$fmt" -- "$bench" own 2 100000 2>/dev/null
	SPOOL_TRACE_FORMAT=$fmt "$spool" probe -q -o "p$fmt" -e func:probe_leaf_add -- "$calls" 50000 \
		>/dev/null 2>&1
	SPOOL_TRACE_FORMAT=$fmt "$spool" path -q -t "f$fmt" -- ./loop >/dev/null 2>&1
done
printf '%-14s %-10s %s\n' "format 2 class" events "bytes/event"
for d in l2 p2 f2; do python3 "$here/trace_classes.py" "$d"; done |
	awk '$1 != "packets" && $1 != "total" { e[$1] += $2; b[$1] += $3 }
	     END { for (c in e) printf "%-14s %-10d %.2f\n", c, e[c], b[c] / e[c] }' | sort
printf '\n%-34s %-16s %s\n' "whole trace, bytes per event" "format 1" "format 2"
for w in "l:spool locks, 2 x 100,000 pairs" "p:spool probe -e func:, 100,000 calls" \
	"f:spool path, 100,000 calls"; do
	k=${w%%:*}
	printf '%-34s %-16s %s\n' "${w#*:}" \
		"$(awk -v b="$(trace_bytes "${k}1")" -v n="$(events "${k}1")" 'BEGIN { if (n) printf "%.2f", b / n }')" \
		"$(awk -v b="$(trace_bytes "${k}2")" -v n="$(events "${k}2")" 'BEGIN { if (n) printf "%.2f", b / n }')"
done

# --- b) 2 x N uncontended pairs --------------------------------------------------
echo "bench: b) 2 threads x $N uncontended pairs, best of 3" >&2
t_nat=$(best3 "$bench" own 2 "$N")
t_v1=$(SPOOL_TRACE_FORMAT=1 best3 "$spool" locks -q -o t -- "$bench" own 2 "$N")
SPOOL_TRACE_FORMAT=1 "$spool" locks -q -o v1 -- "$bench" own 2 "$N" 2>/dev/null
# format 2 in the records mode: the collector encodes each record
t_v2=$(SPOOL_RING_PACKETS=0 best3 "$spool" locks -q -o t -- "$bench" own 2 "$N")
SPOOL_RING_PACKETS=0 "$spool" locks -q -o v2 -- "$bench" own 2 "$N" 2>/dev/null
# format 2 with the agent writing finished packets into its ring (the
# default: the collector copies them; doc/trace-format.md, "Packets in the ring")
t_vp=$(SPOOL_RING_PACKETS=1 best3 "$spool" locks -q -o t -- "$bench" own 2 "$N")
SPOOL_RING_PACKETS=1 "$spool" locks -q -o vp -- "$bench" own 2 "$N" 2>/dev/null
# packets, --clock=none: no time per event (no wait or hold times)
t_vn=$(SPOOL_RING_PACKETS=1 best3 "$spool" locks -q --clock=none -o t -- "$bench" own 2 "$N")
SPOOL_RING_PACKETS=1 "$spool" locks -q --clock=none -o vn -- "$bench" own 2 "$N" 2>/dev/null
bn=$(trace_bytes vn)
b1=$(trace_bytes v1)
b2=$(trace_bytes v2)
bp=$(trace_bytes vp)
pairs=$((2 * N))
lost() { sed -nE 's/^lost_ring=([0-9]+)$/\1/p' "$1/.spool/summary"; }
printf '\n%-26s %-12s %-12s %-10s %s\n' "2 x $N pairs" "wall" "trace" "lost" "added per pair"
printf '%-26s %-12s %-12s %-10s %s\n' native "$(awk -v t="$t_nat" 'BEGIN { printf "%.1f ms", t / 1e6 }')" - - -
for v in 1 2 p n; do
	case $v in
	1) t=$t_v1 b=$b1 name="spool locks, format 1" ;;
	2) t=$t_v2 b=$b2 name="format 2, records mode" ;;
	p) t=$t_vp b=$bp name="  packets in the ring" ;;
	n) t=$t_vn b=$bn name="  packets, --clock=none" ;;
	esac
	if [ "$t" = fail ]; then
		printf '%-26s failed\n' "$name"
		continue
	fi
	printf '%-26s %-12s %-12s %-10s %s\n' "$name" \
		"$(awk -v t="$t" 'BEGIN { printf "%.1f ms", t / 1e6 }')" "$(mb "$b")" "$(lost "v$v")" \
		"$(awk -v a="$t" -v b="$t_nat" -v n="$pairs" 'BEGIN { printf "%+.1f ns (%.2fx native)", (a - b) / n, a / b }')"
done
echo "(trace and lost: of one more run each; a run that lost events has a smaller trace)"
awk -v a="$b1" -v b="$b2" -v n="$pairs" 'BEGIN { printf "trace: %.2f -> %.2f bytes per lock event (%.2fx smaller)\n", a / (2 * n), b / (2 * n), a / b }'
