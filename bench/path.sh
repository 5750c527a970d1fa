#!/bin/bash
# SPDX-License-Identifier: MIT
# path.sh BUILD_DIR - what `spool path` costs per instrumented call: a tight
# loop calling a small function built with -finstrument-functions, timed by
# the program itself (clock_gettime around the loop, so start-up and the
# analysis are not counted), as ns per call:
#
#   native        glibc's no-op __cyg_profile_func_enter/exit
#   spool locks   the agent loaded, function entries off (one load + branch)
#   spool path    every entry and exit written to the thread's ring
#   uftrace       when installed: uftrace record of the same binary (it
#                 hooks the -finstrument-functions calls too)
#
# Then the same loop built without -finstrument-functions, whose entries
# spool path takes from probes (jump probes at the entry and the ret,
# KIND_PROBE records), against its own native run and against the hooks.
#
# Best of 3 runs each. Prints figures and ratios; asserts nothing.
# BENCH_SCALE=0.1 shrinks the loop.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: bench/path.sh BUILD_DIR" >&2
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

work=$(mktemp -d /tmp/spool-bench-path.XXXXXX)
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
if ! gcc -O2 -finstrument-functions -o "$work/loop" "$work/loop.c" ||
	! gcc -O2 -o "$work/plain" "$work/loop.c"; then
	echo "bench: cannot build the loop" >&2
	exit 1
fi

# best OUTPUT_OF_CMDS...: the smallest of 3 figures a command prints.
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
native=$(best ./loop "$N")
# The agent loaded but function entries off: spool locks of the same binary.
off=$(best "$spool" locks -q -o t.off -- ./loop "$N")
# Every entry and exit recorded; the path itself is not printed (-o /dev/null
# still reads the trace, outside the timed loop).
ring=256m
on=$(best "$spool" path -q --ring-size $ring -t t.on -o /dev/null -- ./loop "$N")
lost=$("$spool" path --ring-size $ring -t t.lost -o /dev/null -- ./loop "$N" 2>&1 >/dev/null |
	sed -nE 's/.* ([0-9,]+) lost, .*/\1/p' | tr -d ,)

echo "spool path: $N calls of a tiny instrumented function (ns per call, entry + exit, best of 3)"
printf "  %-34s %8s ns\n" "native (-finstrument-functions)" "$native"
printf "  %-34s %8s ns   %s native\n" "spool locks (entries off)" "$off" "$(ratio "$off" "$native")"
printf "  %-34s %8s ns   %s native, %s events lost\n" "spool path (entries recorded)" "$on" \
	"$(ratio "$on" "$native")" "${lost:-?}"
if command -v uftrace >/dev/null; then
	uf=$(best uftrace record -d "$work/uftrace.data" ./loop "$N")
	printf "  %-34s %8s ns   %s native\n" "uftrace record" "$uf" "$(ratio "$uf" "$native")"
fi

# Entries from probes: the plain build (no -finstrument-functions).
nat_p=$(best ./plain "$N")
probes=$(best "$spool" path -q --ring-size $ring -t t.p -o /dev/null -- ./plain "$N")
echo "spool path of the same loop built without -finstrument-functions (entries from probes)"
printf "  %-34s %8s ns\n" "native (plain build)" "$nat_p"
printf "  %-34s %8s ns   %s native, %s the hooks\n" "spool path (probes)" "$probes" \
	"$(ratio "$probes" "$nat_p")" "$(ratio "$probes" "$on")"
