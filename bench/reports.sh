#!/bin/bash
# SPDX-License-Identifier: MIT
# reports.sh - how fast spool reads big traces: makes a 10M-event probe trace
# (tests/progs/probe_bench under spool probe -e func:probe_small, 2.5M
# calls, entry and exit) and a 10M-event lock trace (bench_locks uncontended,
# 5M lock/unlock pairs), then runs every report and export on each and prints
# events/s and peak RSS (GNU time). Asserts nothing.
#   bench/reports.sh BUILD_DIR [EVENTS]   (EVENTS default 10000000)
set -u
B="${1:-build}"
B="$(cd "$B" && pwd)"
N="${2:-10000000}"
SPOOL="$B/spool"
P="$B/tests/progs"
[ -x "$SPOOL" ] && [ -x "$P/probe_bench" ] || { echo "reports.sh: build spool and the test programs first"; exit 0; }
[ -x /usr/bin/time ] || { echo "reports.sh: needs GNU time (/usr/bin/time)"; exit 0; }
T="$(mktemp -d /tmp/spool-bench-reports.XXXXXX)"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

"$SPOOL" probe -q --ring-size 64m -o probe.trace -e 'func:probe_small' -- \
	"$P/probe_bench" small $((N / 4)) >/dev/null 2>&1
"$SPOOL" locks -q -o locks.trace -- "$P/bench_locks" uncontended $((N / 2)) >/dev/null 2>&1

# one TRACE ARGS...: run spool ARGS TRACE, print events/s and peak RSS.
one() {
	local tr="$1" ev s kb
	shift
	ev="$(sed -n 's/^events=//p' "$tr/.spool/summary")"
	/usr/bin/time -o time.txt -f '%e %M' "$SPOOL" "$@" "$tr" >/dev/null 2>/dev/null
	read -r s kb <time.txt
	awk -v ev="$ev" -v s="$s" -v kb="$kb" -v what="$*" -v tr="$tr" 'BEGIN {
		r = 0; if (s > 0) r = ev / s / 1e6
		printf "  %-12s %-32s %9d events %7.2f s %6.2f M events/s %7.1f MB peak RSS\n", tr, what, ev, s, r, kb / 1024 }'
}

echo "reports: spool reading big traces (wall clock, one run each)"
for a in "info" "report --functions" "report --functions --json" "export --folded -o out" \
	 "export --flamegraph -o out" "export --perfetto -o out" "export --chrome --force -o out" \
	 "path -w out"; do
	# shellcheck disable=SC2086
	one probe.trace $a
done
for a in "info" "report --locks" "report --locks --json" "export --perfetto -o out" \
	 "export --chrome --force -o out"; do
	# shellcheck disable=SC2086
	one locks.trace $a
done
