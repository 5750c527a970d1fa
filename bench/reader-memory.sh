#!/bin/bash
# SPDX-License-Identifier: MIT
# reader-memory.sh - the memory each reader of a trace takes against the
# size of its input (issue 12: "memory used by every reader is bounded by
# the input's size"). Makes traces that are shaped to cost a reader the
# most memory per byte of input: every event on another object (200,000
# locks each taken once by two threads: rr_manylocks), every event from
# another thread (20,000 short threads), every function called once from
# many depths (func:* over sqlite3-like code is in bench/reports.sh; here
# probe_bench under func:*), and the largest input of each fuzz harness's
# corpus (crafted: claimed sizes and counts far above what the bytes hold).
# For each reader (spool info, report --locks/--json/--funcs, export
# --perfetto/--chrome, path) it prints the input's size, the reader's peak
# RSS (GNU time) above a reader's fixed cost (spool info on an empty
# trace) and their ratio. Asserts nothing.
#   bench/reader-memory.sh BUILD_DIR
set -u
B="$(cd "${1:-build}" && pwd)"
SPOOL="$B/spool"
P="$B/tests/progs"
[ -x "$SPOOL" ] && [ -x "$P/rr_manylocks" ] || { echo "reader-memory.sh: build spool and the test programs first"; exit 0; }
[ -x /usr/bin/time ] || { echo "reader-memory.sh: needs GNU time (/usr/bin/time)"; exit 0; }
REPO="$(cd "$(dirname "$0")/.." && pwd)"
T="$(mktemp -d /tmp/spool-bench-rmem.XXXXXX)"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

"$SPOOL" locks -q -o empty.trace -- /bin/true >/dev/null 2>&1
"$SPOOL" locks -q -o locks.trace -- "$P/rr_manylocks" 200000 2 >/dev/null 2>&1
"$SPOOL" locks -q -o threads.trace -- "$P/shortthreads-finst" 20000 2 >/dev/null 2>&1
"$SPOOL" probe -q -o funcs.trace -e 'func:*' -- "$P/probe_bench" small 200000 >/dev/null 2>&1

kb_of() { du -sk --apparent-size "$1" | cut -f1; }
rss() { # rss CMD...: peak RSS in KiB
	/usr/bin/time -o rss.txt -f '%M' "$@" >/dev/null 2>&1
	tail -n1 rss.txt
}
base=$(rss "$SPOOL" info empty.trace)
read -r load _ </proc/loadavg
echo "reader memory: peak RSS above spool info on an empty trace ($base KiB), load $load"
printf '%-10s %10s  %-24s %10s %8s\n' trace in_KiB reader rss_KiB ratio
for tr in locks threads funcs; do
	[ -d "$tr.trace" ] || { echo "$tr: no trace made"; continue; }
	in=$(kb_of "$tr.trace")
	for r in "info" "report --locks" "report --json" "report --functions" \
		"export --perfetto -w /dev/null" "export --chrome --force -w /dev/null" "path -w /dev/null"; do
		# shellcheck disable=SC2086
		kb=$(rss "$SPOOL" $r "$tr.trace")
		awk -v t="$tr" -v in_="$in" -v r="$r" -v kb="$kb" -v b="$base" 'BEGIN {
			d = kb - b; if (d < 0) d = 0
			printf "%-10s %10d  %-24s %10d %8.2f\n", t, in_, substr(r, 1, 24), d, d / in_ }'
	done
done
# The fuzz harnesses (make fuzz-bins) over the largest input of their
# corpus: each harness runs one reader over it in memory.
for h in "$REPO"/fuzz/corpus/*/; do
	name=$(basename "$h")
	bin="$REPO/build-fuzz/fuzz_$name"
	[ -x "$bin" ] || continue
	big=$(find "$h" -type f -printf '%s %p\n' | sort -n | tail -n1 | cut -d' ' -f2-)
	[ -n "$big" ] || continue
	kb=$(rss "$bin" -runs=1 "$big")
	awk -v t="fuzz:$name" -v b=$(stat -c %s "$big") -v kb="$kb" 'BEGIN {
		printf "%-10s %10.1f  %-24s %10d %8s\n", t, b / 1024, "(harness, whole RSS)", kb, "-" }'
done
