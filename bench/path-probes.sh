#!/bin/bash
# SPDX-License-Identifier: MIT
# path-probes.sh BUILD_DIR - what `spool path` costs per call when the
# function entries come from probes (a program built without
# -finstrument-functions) against the -finstrument-functions hooks: the
# same tight loop calling a small function, built twice (plain and
# -finstrument-functions), timed by the program itself (clock_gettime
# around the loop: start-up, probe placement and the analysis are not
# counted), as ns per call:
#
#   native              each build without spool
#   spool path, hooks   the -finst build: KIND_FUNC entry + exit records
#   spool path, probes  the plain build: jump probes at the entry and the
#                       ret, KIND_PROBE entry + exit records
#
# Best of 3 runs each. Prints figures and ratios; asserts nothing.
# BENCH_SCALE=0.1 shrinks the loop.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: bench/path-probes.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
spool="$build/spool"
if [ ! -x "$spool" ]; then
	echo "bench: $spool is not built (make all)" >&2
	exit 1
fi
scale=${BENCH_SCALE:-1}
N=$(awk -v s="$scale" 'BEGIN { v = int(2000000 * s); print (v < 1000 ? 1000 : v) }')

work=$(mktemp -d /tmp/spool-bench-pathprobes.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/loop.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noinline)) void tiny(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		tiny(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
EOF
if ! gcc -O2 -o "$work/plain" "$work/loop.c" ||
	! gcc -O2 -finstrument-functions -o "$work/finst" "$work/loop.c"; then
	echo "bench: cannot build the loop" >&2
	exit 1
fi

best() {
	local b="" v
	for _ in 1 2 3; do
		v=$("$@" 2>/dev/null | tail -n 1)
		[[ "$v" =~ ^[0-9.]+$ ]] || continue
		if [ -z "$b" ] || awk -v v="$v" -v b="$b" 'BEGIN { exit !(v < b) }'; then b=$v; fi
	done
	echo "${b:-NA}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "NA" || b == "NA" || b == 0) print "NA"; else printf "%.1fx", a / b }'; }

cd "$work" || exit 1
ring=256m
nat_p=$(best ./plain "$N")
nat_f=$(best ./finst "$N")
hooks=$(best "$spool" path -q --ring-size $ring -t t.f -o /dev/null -- ./finst "$N")
probes=$(best "$spool" path -q --ring-size $ring -t t.p -o /dev/null -- ./plain "$N")

echo "spool path: $N calls of a tiny function (ns per call, entry + exit, best of 3)"
printf "  %-36s %8s ns\n" "native, plain build" "$nat_p"
printf "  %-36s %8s ns\n" "native, -finstrument-functions" "$nat_f"
printf "  %-36s %8s ns   %s its native\n" "spool path, hooks (-finst build)" "$hooks" \
	"$(ratio "$hooks" "$nat_f")"
printf "  %-36s %8s ns   %s its native, %s the hooks\n" "spool path, probes (plain build)" \
	"$probes" "$(ratio "$probes" "$nat_p")" "$(ratio "$probes" "$hooks")"
