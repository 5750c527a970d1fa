#!/bin/bash
# SPDX-License-Identifier: MIT
# reports.sh - how fast spool reads big traces: makes a 10M-event probe trace
# (tests/progs/probe_bench under spool probe -e func:probe_small, 2.5M
# calls, entry and exit), a 10M-event lock trace (bench_locks uncontended,
# 5M lock/unlock pairs) and a 10M-event contended one (bench_locks, 4 threads
# on one mutex then each on its own), then runs every report and export on
# each and prints wall clock, CPU time (user + system: the machine is shared,
# and the wall clock follows its load), events/s, peak RSS (GNU time) and the
# load average. Exports write to /dev/null. Asserts nothing.
#   bench/reports.sh BUILD_DIR [EVENTS]   (EVENTS default 10000000)
# SPOOL_BEFORE=/other/spool runs each command with that binary too, on the
# same traces, just before (a before/after comparison in one run).
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
"$SPOOL" locks -q -o contended.trace -- "$P/bench_locks" 4 $((N / 16)) >/dev/null 2>&1

# run WHO SPOOL TRACE ARGS...: run SPOOL ARGS TRACE, print one line.
run() {
	local who="$1" sp="$2" tr="$3" ev s u y kb load
	shift 3
	ev="$(sed -n 's/^events=//p' "$tr/.spool/summary")"
	/usr/bin/time -o time.txt -f '%e %U %S %M' "$sp" "$@" "$tr" >/dev/null 2>/dev/null
	read -r s u y kb <time.txt
	read -r load _ </proc/loadavg
	awk -v ev="$ev" -v s="$s" -v cpu="$u + $y" -v kb="$kb" -v what="$*" -v tr="$tr" \
	    -v who="$who" -v ldavg="$load" 'BEGIN {
		split(cpu, c, " [+] "); cpu = c[1] + c[2]
		r = 0; if (s > 0) r = ev / s / 1e6
		printf "  %-6s %-15s %-36s %9d events %6.2f s %6.2f s cpu %6.2f M ev/s %6.1f MB load %s\n",
			who, tr, what, ev, s, cpu, r, kb / 1024, ldavg }'
}

# one TRACE ARGS...: run spool ARGS TRACE (and SPOOL_BEFORE's first).
one() {
	if [ -n "${SPOOL_BEFORE:-}" ]; then
		run before "$SPOOL_BEFORE" "$@"
		run after "$SPOOL" "$@"
	else
		run "" "$SPOOL" "$@"
	fi
}

echo "reports: spool reading big traces (wall clock, CPU user+system, one run each)"
for a in "info" "report --functions" "report --functions --json" "export --folded -w /dev/null" \
	 "export --flamegraph -w /dev/null" "export --perfetto -w /dev/null" \
	 "export --chrome --force -w /dev/null" "path -w /dev/null"; do
	# shellcheck disable=SC2086
	one probe.trace $a
done
for tr in locks.trace contended.trace; do
	for a in "info" "report --locks" "report --locks --json" "export --perfetto -w /dev/null" \
		 "export --chrome --force -w /dev/null"; do
		# shellcheck disable=SC2086
		one "$tr" $a
	done
done
