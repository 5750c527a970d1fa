#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh BUILD_DIR - `make bench`: what `spool locks` costs, measured in one
# run and printed as ratios against native and against the peers Debian
# offers (valgrind drd, mutrace, ltrace, uftrace: each used when installed).
#
#   a) ns added per uncontended lock+unlock pair (bench_locks uncontended N)
#   b) the 4 threads x 100,000 pairs workload: time ratio, events lost
#   c) pigz -p 2 compressing 100 MB: time ratio, events lost
#
# Every figure is the best of 3 runs (wall clock). Nothing is asserted:
# timings on a shared 2-vCPU VM vary; the lost-event counts should be 0.
# BENCH_SCALE=0.1 shrinks every workload (for a quick look).
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: bench/run.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
spool="$build/spool"
bench="$build/tests/progs/bench_locks"
for f in "$spool" "$bench"; do
	if [ ! -x "$f" ]; then
		echo "bench: $f is not built (make all progs)" >&2
		exit 1
	fi
done

scale=${BENCH_SCALE:-1}
scaled() { awk -v n="$1" -v s="$scale" 'BEGIN { v = int(n * s); print (v < 1 ? 1 : v) }'; }
N_UNC=$(scaled 10000000)   # uncontended pairs, native and spool
N_DRD=$(scaled 200000)     # drd is ~100x slower: fewer pairs, per-pair figure
N_LTRACE=$(scaled 20000)   # ltrace stops at every call
MB=$(scaled 100)
DATA=/tmp/spool-bench-${MB}M.dat

work=$(mktemp -d /tmp/spool-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
log="$work/log"

now_ns() { date +%s%N; }

# best3 CMD...: best wall time of 3 runs in ns; the last run's stderr is in
# $work/last.err. Prints "fail" if a run fails.
best3() {
	local best="" t0 t1 i
	for i in 1 2 3; do
		rm -rf "$work/trace" "$work/trace.old"
		t0=$(now_ns)
		if ! "$@" >/dev/null 2>"$work/last.err" </dev/null; then
			echo "bench: failed: $*" >>"$log"
			cat "$work/last.err" >>"$log"
			echo fail
			return
		fi
		t1=$(now_ns)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then
			best=$((t1 - t0))
		fi
	done
	echo "$best"
}

# lost: events lost in the last spool run, from its summary line.
lost() {
	sed -nE 's/^spool: [0-9,]+ lock events, [0-9,]+ thread events, ([0-9,]+) lost, .*/\1/p' "$work/last.err" |
		tr -d , | tail -n 1
}

ms() { awk -v t="$1" 'BEGIN { printf "%.1f ms", t / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
per_pair() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%+.1f ns", (a - b) / n }'; }

rows=()
row() { rows+=("$(printf '%-34s %-13s %-13s %-10s %-10s %s' "$@")"); }

spool_q=("$spool" locks -q -o "$work/trace" --)

echo "bench: $(nproc) cpus, $(uname -r); best of 3 runs; scale $scale" >&2

# --- a) uncontended pairs ---------------------------------------------------
echo "bench: a) uncontended lock+unlock, $N_UNC pairs" >&2
t_nat=$(best3 "$bench" uncontended "$N_UNC")
t_sp=$(best3 "${spool_q[@]}" "$bench" uncontended "$N_UNC")
l_sp=$(lost)
s_nat=$(best3 "$bench" uncontended 0)
s_sp=$(best3 "${spool_q[@]}" "$bench" uncontended 0)
if [ "$t_nat" != fail ] && [ "$t_sp" != fail ]; then
	row "uncontended pair: spool" "$(ms "$t_nat")" "$(ms "$t_sp")" "$(ratio "$t_sp" "$t_nat")" \
		"${l_sp:-?}" "$(per_pair "$t_sp" "$t_nat" "$N_UNC") per pair (startup included; alone: $(ms $((s_sp - s_nat))))"
else
	row "uncontended pair: spool" "-" "-" "-" "-" "failed, see below"
fi

# The same loop timed from inside the program: what a traced program pays
# per pair while spool collects beside it, without process startup or the
# collector's work after the exit. Best of 3 for each side.
inproc() {
	local best="" v i
	for i in 1 2 3; do
		rm -rf "$work/trace" "$work/trace.old"
		v=$("$@" 2>/dev/null </dev/null | tail -n 1)
		case "$v" in '' | *[!0-9.]*) echo fail; return ;; esac
		if [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$v
		fi
	done
	echo "$best"
}
p_nat=$(inproc "$bench" uncontended-timed "$N_UNC")
p_sp=$(inproc "${spool_q[@]}" "$bench" uncontended-timed "$N_UNC")
if [ "$p_nat" != fail ] && [ "$p_sp" != fail ]; then
	row "uncontended pair, in-process" "${p_nat} ns" "${p_sp} ns" \
		"$(ratio "$p_sp" "$p_nat")" "-" \
		"$(awk -v a="$p_sp" -v b="$p_nat" 'BEGIN { printf "%+.1f ns", a - b }') per pair (target <= 40 ns)"
fi

# peer NAME PACKAGE N CMD...: a peer tool running the uncontended loop. Its
# startup (valgrind's is half a second) would swamp a per-pair figure, so the
# cost per pair is the slope between 0 and N pairs, net of native's slope.
peer() {
	local name="$1" pkg="$2" n="$3" t0 tn n0 nn
	shift 3
	if ! command -v "$1" >/dev/null; then
		local cand
		cand=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
		if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
			row "uncontended pair: $name" "-" "-" "-" "-" "not packaged in this Debian release"
		else
			row "uncontended pair: $name" "-" "-" "-" "-" "not installed (apt-get install $pkg)"
		fi
		return
	fi
	n0=$(best3 "$bench" uncontended 0)
	nn=$(best3 "$bench" uncontended "$n")
	t0=$(best3 "$@" "$bench" uncontended 0)
	tn=$(best3 "$@" "$bench" uncontended "$n")
	if [ "$t0" = fail ] || [ "$tn" = fail ] || [ "$n0" = fail ] || [ "$nn" = fail ]; then
		row "uncontended pair: $name" "-" "-" "-" "-" "failed, see below"
		return
	fi
	row "uncontended pair: $name" "$(ms "$nn")" "$(ms "$tn")" "$(ratio "$tn" "$nn")" "-" \
		"$(per_pair $((tn - t0)) $((nn - n0)) "$n") per pair ($n pairs, startup $(ms $((t0 - n0))) excluded)"
}

peer "valgrind drd" valgrind "$N_DRD" valgrind -q --tool=drd
peer "mutrace" mutrace "$N_UNC" mutrace -q
peer "ltrace -c" ltrace "$N_LTRACE" ltrace -c -o /dev/null
peer "uftrace" uftrace "$N_DRD" uftrace record --force -d "$work/uftrace.data"

# --- b) 4 threads x 100,000 -------------------------------------------------
ITERS=$(scaled 100000)
echo "bench: b) 4 threads x $ITERS pairs, shared + per-thread mutex" >&2
t_nat=$(best3 "$bench" 4 "$ITERS")
t_sp=$(best3 "${spool_q[@]}" "$bench" 4 "$ITERS")
l_sp=$(lost)
if [ "$t_nat" != fail ] && [ "$t_sp" != fail ]; then
	row "4 x $ITERS pairs: spool" "$(ms "$t_nat")" "$(ms "$t_sp")" "$(ratio "$t_sp" "$t_nat")" \
		"${l_sp:-?}" "$((4 * ITERS * 2 * 2)) lock events expected"
else
	row "4 x $ITERS pairs: spool" "-" "-" "-" "-" "failed, see below"
fi
if command -v valgrind >/dev/null; then
	t_drd=$(best3 valgrind -q --tool=drd "$bench" 4 "$ITERS")
	[ "$t_drd" != fail ] && row "4 x $ITERS pairs: valgrind drd" "$(ms "$t_nat")" \
		"$(ms "$t_drd")" "$(ratio "$t_drd" "$t_nat")" "-" ""
fi

# --- c) pigz ----------------------------------------------------------------
if command -v pigz >/dev/null; then
	if [ ! -s "$DATA" ]; then
		echo "bench: generating $DATA ($MB MB, compressible but not trivial)" >&2
		# Each round is 1 MB of base64 noise and 1 MB of repeated text.
		{
			for ((i = 1; i <= MB / 2 + 1; i++)); do
				head -c 750000 /dev/urandom | base64 -w 76
				yes "spool bench line $i: the quick brown fox jumps over the lazy dog" |
					head -c 1000000
			done
		} 2>/dev/null | head -c $((MB * 1000000)) >"$DATA.tmp"
		mv "$DATA.tmp" "$DATA"
	fi
	echo "bench: c) pigz -p 2 on $MB MB" >&2
	t_nat=$(best3 pigz -p 2 -c "$DATA")
	t_sp=$(best3 "${spool_q[@]}" pigz -p 2 -c "$DATA")
	l_sp=$(lost)
	ev=$(sed -nE 's/^spool: ([0-9,]+) lock events.*/\1/p' "$work/last.err" | tail -n 1)
	if [ "$t_nat" != fail ] && [ "$t_sp" != fail ]; then
		row "pigz -p 2, $MB MB: spool" "$(ms "$t_nat")" "$(ms "$t_sp")" \
			"$(ratio "$t_sp" "$t_nat")" "${l_sp:-?}" "${ev:-?} lock events"
	else
		row "pigz -p 2, $MB MB: spool" "-" "-" "-" "-" "failed, see below"
	fi
else
	row "pigz -p 2: spool" "-" "-" "-" "-" "pigz not installed"
fi

echo
printf '%-34s %-13s %-13s %-10s %-10s %s\n' "workload" "native" "traced" "ratio" "lost" "notes"
printf '%-34s %-13s %-13s %-10s %-10s %s\n' "--------" "------" "------" "-----" "----" "-----"
printf '%s\n' "${rows[@]}"
if [ -s "$log" ]; then
	echo
	echo "failures:"
	sed 's/^/  /' "$log"
fi
