#!/bin/bash
# SPDX-License-Identifier: MIT
# probe.sh - cost of a dynamic probe hit (spool probe): a tight loop of calls
# to a small function, native and with its entry and exit probed (a jump
# probe each), and to a 3-byte function whose probes are int3; against
# uftrace when it is installed. Prints ns per call and the added cost per
# hit (two hits per call: entry and exit); asserts nothing.
#   bench/probe.sh BUILD_DIR
set -u
B="${1:-build}"
B="$(cd "$B" && pwd)"
SPOOL="$B/spool"
P="$B/tests/progs/probe_bench"
[ -x "$SPOOL" ] && [ -x "$P" ] || { echo "probe.sh: build spool and the test programs first"; exit 0; }
T="$(mktemp -d /tmp/spool-bench-probe.XXXXXX)"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
N=2000000
NT=20000

ns() { sed -n 's/^ns_per_call //p'; }
best() { # best of 3 runs of a command printing ns_per_call
	local b="" v i
	for i in 1 2 3; do
		v="$("$@" 2>/dev/null | ns)"
		[ -n "$v" ] || continue
		if [ -z "$b" ] || awk "BEGIN{exit !($v < $b)}"; then b="$v"; fi
	done
	echo "${b:-nan}"
}

native="$(best "$P" small $N)"
jump="$(best "$SPOOL" probe -q --ring-size 64m -e 'func:probe_small' -- "$P" small $N)"
tnative="$(best "$P" tiny $NT)"
int3="$(best "$SPOOL" probe -q -e 'func:probe_tiny3' -- "$P" tiny $NT)"

echo "probe: ns per call of a small function, entry and exit probed (2 hits per call)"
printf "  native               %8s ns\n" "$native"
printf "  spool jump probes    %8s ns   (+%s ns per hit)\n" "$jump" \
	"$(awk "BEGIN{printf \"%.1f\", ($jump - $native) / 2}")"
printf "  native (3-byte fn)   %8s ns\n" "$tnative"
printf "  spool int3 probes    %8s ns   (+%s ns per hit)\n" "$int3" \
	"$(awk "BEGIN{printf \"%.1f\", ($int3 - $tnative) / 2}")"
if command -v uftrace >/dev/null; then
	u="$(best uftrace record -d "$T/uftrace.data" --force -P probe_small "$P" small $N)"
	printf "  uftrace -P           %8s ns   (+%s ns per call)\n" "$u" \
		"$(awk "BEGIN{printf \"%.1f\", $u - $native}")"
else
	echo "  uftrace: not installed (apt-get install uftrace to compare)"
fi
