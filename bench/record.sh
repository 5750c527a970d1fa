#!/bin/bash
# SPDX-License-Identifier: MIT
# record.sh BUILD_DIR - what spool record and spool replay cost against
# native runs, printed as ratios of wall-clock times (best and median; "cpu"
# is the ratio of the median user + system times, less disturbed by other
# load):
#
# sync mode:
#   0) the fixed cost: spool record and spool replay of /bin/true
#   a) rr_bank 4 threads x 1,000,000 transfers (a lock-heavy parallel
#      workload: 4M schedule events)
#   b) rr_pc 2 producers, 3 consumers, 100,000 items each (condvars)
#   c) pigz -p 2 compressing 20 MB from stdin (a real program; reads recorded),
#      also recorded with --compress (the input data packed with zstd)
#   each sync row also gives the cost per recorded event: (time - native -
#   the fixed cost) / schedule and input events
# serial mode (one thread at a time):
#   d) rr_cpu-finst 1 thread, then 2 threads x 50M calls (CPU-bound,
#      -finstrument-functions: every call is a progress point); the 2-thread
#      row also against a native run pinned to one CPU, since serial mode
#      uses one CPU at a time
#   e) pigz -p 2 as in c): pigz has no progress points, so serial mode
#      switches threads only at its lock and read calls; also against a
#      native run on one CPU
#
# "replay" maps the recording's replay image; "first replay" loads the
# recording from its trace and writes that image (doc/record.md). Each row
# runs its commands in turn BENCH_ROUNDS times (default 5) and prints the
# best and the median ratios: this VM is noisy.
#
# Nothing is asserted. Targets of issue 3: sync record <= 1.1x, serial record
# <= 1.5x (CPU-bound with progress points), replay <= 1.2x.
# BENCH_SCALE=0.1 shrinks the workloads.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: bench/record.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
spool="$build/spool"
progs="$build/tests/progs"
for f in "$spool" "$progs/rr_bank" "$progs/rr_pc" "$progs/rr_cpu-finst"; do
	if [ ! -x "$f" ]; then
		echo "bench: $f is not built (make all progs)" >&2
		exit 1
	fi
done
scale=${BENCH_SCALE:-1}
scaled() { awk -v n="$1" -v s="$scale" 'BEGIN { v = int(n * s); print (v < 1 ? 1 : v) }'; }

work=$(mktemp -d /tmp/spool-bench-rr.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

now() { date +%s%N; }
# The VM this runs on is noisy, and a best of 3 of each command in turn
# could land one of them in a slow spell: every row runs its commands in
# turn, ROUNDS times (BENCH_ROUNDS, default 5), and gives the best and the
# median of each.
ROUNDS=${BENCH_ROUNDS:-5}
# once STDIN NAME CMD...: one run (output discarded); appends its wall time
# (ns) to NAME.w and its CPU time (user + system, children included) to NAME.c
once() {
	local in="$1" name="$2" t0 t1
	shift 2
	t0=$(now)
	( TIMEFORMAT='%U %S'; time "$@" <"$in" >/dev/null 2>&1 ) 2>"$work/time"
	t1=$(now)
	echo $((t1 - t0)) >>"$work/$name.w"
	awk '{ printf "%d\n", ($1 + $2) * 1e9 }' "$work/time" >>"$work/$name.c"
}
# same_output LABEL RECORD_OPTIONS...: pigz recorded into a file and
# replayed into a pipe writes native's bytes both times. (The timed runs
# write into /dev/null, and a replay gives the program what it was
# recorded with: their replays write there too.)
same_output() {
	local label="$1" want
	shift
	want=$(pigz -p 2 -c <data | md5sum)
	"$spool" record -q "$@" -o chk.trace -- pigz -p 2 -c <data >chk.rec 2>/dev/null
	if [ "$(md5sum <chk.rec)" = "$want" ] &&
		[ "$("$spool" replay -q -o rep.trace chk.trace 2>/dev/null | md5sum)" = "$want" ]; then
		echo "$label: yes"
	else
		echo "$label: NO"
	fi
}
# best NAME.w|NAME.c, med NAME.w|NAME.c: the least and the median value
best() { sort -n "$work/$1" | head -n 1; }
med() { sort -n "$work/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / (b > 0 ? b : 1) }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.1f ms", a / 1e6 }'; }
# per-event cost in ns: (t - native - fixed) / events
per_ev() {
	awk -v t="$1" -v n="$2" -v f="$3" -v e="$4" \
		'BEGIN { if (e < 1) e = 1; printf "%.0f", (t - n - f) / e }'
}

# row NAME STDIN CMD...: native, record, the first replay (which writes
# the recording's replay image) and a replay (which maps it), in turn;
# MODE (sync or serial) selects the recording mode, PIN=1 adds a native run
# on one CPU. Sync rows add the cost per recorded event beyond the fixed
# cost (FIX_REC, FIX_REP: the /bin/true row).
MODE=sync
PIN=0
REC_OPTS=
FIX_REC=0
FIX_REP=0
row() {
	local name="$1" in="$2" r ev nat rec rep
	shift 2
	rm -f "$work"/*.w "$work"/*.c
	"$spool" record --mode "$MODE" $REC_OPTS -q -o rec.trace -- "$@" <"$in" >/dev/null 2>&1
	for ((r = 0; r < ROUNDS; r++)); do
		once "$in" nat "$@"
		if [ "$PIN" = 1 ]; then
			once "$in" pin taskset -c 0 "$@"
		fi
		once "$in" rec "$spool" record --mode "$MODE" $REC_OPTS -q -o rec2.trace -- "$@"
		rm -f rec.trace/.spool/replay.img
		once "$in" first "$spool" replay -q -o rep.trace rec.trace
		once "$in" rep "$spool" replay -q -o rep.trace rec.trace
	done
	nat=$(best nat.w) rec=$(best rec.w) rep=$(best rep.w)
	printf "%-34s native %10s  record %6sx  replay %6sx  first replay %6sx\n" \
		"$name" "$(ms "$nat")" "$(ratio "$rec" "$nat")" "$(ratio "$rep" "$nat")" \
		"$(ratio "$(best first.w)" "$nat")"
	printf "%-34s median %10s  record %6sx  replay %6sx  first replay %6sx   cpu: record %6sx  replay %6sx\n" \
		"" "$(ms "$(med nat.w)")" "$(ratio "$(med rec.w)" "$(med nat.w)")" \
		"$(ratio "$(med rep.w)" "$(med nat.w)")" "$(ratio "$(med first.w)" "$(med nat.w)")" \
		"$(ratio "$(med rec.c)" "$(med nat.c)")" "$(ratio "$(med rep.c)" "$(med nat.c)")"
	if [ "$PIN" = 1 ]; then
		printf "%-34s native %10s  record %6sx  replay %6sx   median: record %6sx  replay %6sx\n" \
			"  against native on 1 CPU" "$(ms "$(best pin.w)")" \
			"$(ratio "$rec" "$(best pin.w)")" "$(ratio "$rep" "$(best pin.w)")" \
			"$(ratio "$(med rec.w)" "$(med pin.w)")" "$(ratio "$(med rep.w)" "$(med pin.w)")"
	fi
	if [ "$MODE" = sync ]; then
		ev=$("$spool" replay --dump-schedule rec.trace 2>/dev/null | grep -c '^\(sched\|input\) ')
		printf "%-34s %s events: record %s ns/event, replay %s ns/event (beyond the fixed cost)\n" \
			"" "$ev" "$(per_ev "$rec" "$nat" "$FIX_REC" "$ev")" \
			"$(per_ev "$rep" "$nat" "$FIX_REP" "$ev")"
	fi
}

echo "spool record --mode sync / spool replay, slowdown against native (best and median of $ROUNDS, in turn)"
rm -f "$work"/*.w "$work"/*.c
"$spool" record --mode sync -q -o rec.trace -- /bin/true </dev/null >/dev/null 2>&1
for ((r = 0; r < ROUNDS; r++)); do
	once /dev/null nat /bin/true
	once /dev/null rec "$spool" record --mode sync -q -o rec2.trace -- /bin/true
	once /dev/null rep "$spool" replay -q -o rep.trace rec.trace
done
FIX_REC=$(($(best rec.w) - $(best nat.w)))
FIX_REP=$(($(best rep.w) - $(best nat.w)))
printf "%-34s record %s, replay %s (beyond the program's own run)\n" "fixed cost (/bin/true)" \
	"$(ms "$FIX_REC")" "$(ms "$FIX_REP")"
N=$(scaled 1000000)
row "rr_bank 4 threads x $N" /dev/null "$progs/rr_bank" 4 "$N"
N=$(scaled 100000)
row "rr_pc 2+3 threads, $N items each" /dev/null "$progs/rr_pc" 2 3 "$N"
if command -v pigz >/dev/null; then
	MB=$(scaled 20)
	python3 -c "
import random
r = random.Random(1)
words = [bytes(r.choice(b'abcdefghij') for _ in range(r.randint(2, 9))) for _ in range(500)]
out = bytearray()
while len(out) < $MB * 1024 * 1024:
    out += r.choice(words) + b' '
open('data', 'wb').write(out)"
	row "pigz -p 2, $MB MB" data pigz -p 2 -c
	same_output "pigz replay output identical to native" --mode sync
	plain=$(cat rec.trace/stream_* | wc -c)
	REC_OPTS=--compress row "pigz -p 2, $MB MB, --compress" data pigz -p 2 -c
	printf "%-34s trace streams %s bytes, against %s without --compress\n" "" \
		"$(cat rec.trace/stream_* | wc -c)" "$plain"
	same_output "pigz --compress replay output identical to native" --mode sync --compress
else
	echo "pigz: not installed, skipped"
fi

echo
echo "spool record --mode serial / spool replay, slowdown against native (best and median of $ROUNDS, in turn)"
MODE=serial
FIX_REC=0
FIX_REP=0
N=$(scaled 50000000)
row "rr_cpu-finst 1 thread x $N" /dev/null "$progs/rr_cpu-finst" 1 "$N"
PIN=1 row "rr_cpu-finst 2 threads x $N" /dev/null "$progs/rr_cpu-finst" 2 "$N"
if command -v pigz >/dev/null; then
	PIN=1 row "pigz -p 2, $MB MB (no progress points)" data pigz -p 2 -c
	same_output "pigz serial replay output identical to native" --mode serial
fi

echo
echo "raw system calls (inline syscall, caught by syscall user dispatch: one SIGSYS each)"
MODE=sync
N=$(scaled 1000000)
row "rr_rawsys --getpid $N (sync)" /dev/null "$progs/rr_rawsys" --getpid "$N"
