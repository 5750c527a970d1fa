#!/bin/bash
# SPDX-License-Identifier: MIT
# fuzz-run.sh - run spool's libFuzzer harnesses (fuzz/, built by `make fuzz`)
# and print one line of totals per harness: executions, seconds, crashes.
#
#   scripts/fuzz-run.sh [--check] BUILD_DIR SECONDS HARNESS...
#
# Each harness starts from its committed corpus, fuzz/corpus/<harness>/,
# which it runs whole first, then fuzzes for SECONDS. New inputs it finds go
# to BUILD_DIR/corpus/<harness>/ (never into the repository: add the ones
# worth keeping by hand), crash inputs to BUILD_DIR/crashes/, libFuzzer's
# output to BUILD_DIR/logs/<harness>.log. --check (make check) keeps nothing
# new and is meant for a few seconds per harness. Exits 1 if any harness
# crashed, leaked or timed out, with the end of its log.
set -uo pipefail

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
if [ $# -lt 3 ]; then
	echo "usage: $0 [--check] BUILD_DIR SECONDS HARNESS..." >&2
	exit 2
fi
build=$(cd "$1" && pwd)
secs=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
# The seeds name binaries relative to the repository's root (fuzz-seeds.sh).
cd "$here" || exit 1
mkdir -p "$build/logs" "$build/crashes"
status=0
tot_execs=0
tot_secs=0
printf '%-10s %10s %7s %8s %s\n' harness execs seconds crashes corpus
for h in "$@"; do
	bin=$build/fuzz_$h
	seeds=$here/fuzz/corpus/$h
	log=$build/logs/$h.log
	if [ ! -x "$bin" ]; then
		echo "fuzz-run: $bin is missing (make fuzz)" >&2
		status=1
		continue
	fi
	if [ $check = 1 ]; then
		new=$(mktemp -d)
	else
		new=$build/corpus/$h
		mkdir -p "$new"
	fi
	rm -f "$build/crashes/$h"-*
	# The trace harnesses share a dictionary; probe's input is an ELF file.
	dict=(-dict="$here/fuzz/trace.dict")
	[ "$h" = probe ] && dict=(-dict="$here/fuzz/elf.dict")
	start=$(date +%s.%N)
	# -timeout: one input running 20 s is a hang, a finding like a crash.
	# rss_limit, malloc_limit: a reader whose memory is not bounded by its
	# input is one too (inputs are a few KiB; 1 GiB at once is no bound).
	# fuzz/lsan.supp: leaks inside Debian's libraries on malformed input.
	# Their frames have no frame pointers: probe's allocations (libdw's)
	# are unwound the slow way so a suppression can see the function.
	lsan="suppressions=$here/fuzz/lsan.supp"
	[ "$h" = probe ] && lsan="$lsan:fast_unwind_on_malloc=0"
	LSAN_OPTIONS="$lsan${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
	timeout -k 10 $((secs + 300)) "$bin" -max_total_time="$secs" -timeout=20 \
		-rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$build/crashes/$h-" "$new" "$seeds" >"$log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	el=$(echo "$start $end" | awk '{printf "%.1f", $2 - $1}')
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	execs=${execs:-0}
	crashes=$(find "$build/crashes" -name "$h-*" | wc -l)
	nseeds=$(find "$seeds" -type f 2>/dev/null | wc -l)
	printf '%-10s %10s %7s %8s %s\n' "$h" "$execs" "$el" "$crashes" "$nseeds seeds"
	tot_execs=$((tot_execs + execs))
	tot_secs=$(echo "$tot_secs $el" | awk '{printf "%.1f", $1 + $2}')
	if [ $rc != 0 ] || [ "$crashes" != 0 ]; then
		echo "fuzz-run: $h failed (exit $rc); the end of $log:" >&2
		tail -40 "$log" >&2
		status=1
	fi
	[ $check = 1 ] && rm -rf "$new"
done
printf '%-10s %10s %7s\n' total "$tot_execs" "$tot_secs"
exit $status
