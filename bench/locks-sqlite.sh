#!/bin/bash
# SPDX-License-Identifier: MIT
# locks-sqlite.sh BUILD_DIR [OTHER_BUILD_DIR] - `spool locks` on a real
# program: Debian's sqlite3 (libsqlite3 built thread-safe: every malloc and
# every statement takes a pthread mutex) running 30,000 inserts in a
# transaction and 20,000 point queries from an in-memory database, about 2
# million uncontended lock/unlock pairs in one thread.
#
#   a) the same report figures: per lock (by name) its acquisitions,
#      contentions, events, owner changes and unmatched releases, and the
#      thread's acquisitions, from `spool report --locks --json` of each
#      build's run (times differ from run to run and are not compared here);
#      and, on this build's trace, the exact check: the run made again in
#      the records mode with format 1 (no format 2 anywhere: the collector
#      writes each record field by field) and that trace written again in
#      format 2 by `spool decode --trace-out` (spool:lock_release where it
#      applies) give the same whole report, times included.
#   b) the cost: the trace's bytes and events (bench/trace_classes.py), and
#      the whole command's wall clock and CPU (user + system, spool and the
#      program), native and under each build, interleaved, best and median
#      of ROUNDS (default 5).
#
# Nothing is asserted: this prints figures for doc/trace-format.md and the
# notes. Needs sqlite3 (scripts/deps.sh --real) and python3.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bench/locks-sqlite.sh BUILD_DIR [OTHER_BUILD_DIR]" >&2
	exit 2
fi
command -v sqlite3 >/dev/null || { echo "locks-sqlite: sqlite3 is not installed" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
builds=()
for b in "$@"; do
	b=$(cd "$b" && pwd) || exit 1
	[ -x "$b/spool" ] || { echo "locks-sqlite: $b: spool not built" >&2; exit 1; }
	builds+=("$b")
done
rounds=${ROUNDS:-5}
work=$(mktemp -d /tmp/spool-locks-sqlite.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

python3 - >sql.txt <<'EOF'
print("CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);")
print("BEGIN;")
for i in range(30000):
    print("INSERT INTO t VALUES(%d, 'row%d');" % (i, i))
print("COMMIT;")
for i in range(20000):
    print("SELECT v FROM t WHERE k = %d;" % (i * 7 % 30000))
EOF
run() { sqlite3 :memory: <sql.txt >/dev/null; }
# counts JSON: the report's figures that do not depend on time
counts() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for l in sorted(d["locks"], key=lambda l: l["name"]):
    print(l["name"], l["type"], l["events"], l["acquisitions"], l["contended"],
          l["owner_changes"], l["unmatched_releases"], l["held_at_end"])
for t in d["threads"]:
    print("thread", t["name"], t["acquisitions"], t["contended"], t["timeouts"])
print("lost", d["trace"]["lost"], "incomplete", d["trace"]["incomplete"])'
}

echo "locks-sqlite: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo "a) report figures"
for j in "${!builds[@]}"; do
	b=${builds[$j]}
	"$b/spool" locks -q -o "t.$j" -- sqlite3 :memory: <sql.txt >/dev/null 2>&1
	"$b/spool" report --locks --json "t.$j" 2>/dev/null | counts >"counts.$j"
	echo "   $b: $(wc -l <"counts.$j") lines of counts"
	sed 's/^/     /' "counts.$j"
	if [ "$j" -gt 0 ]; then
		if cmp -s counts.0 "counts.$j"; then
			echo "   the same counts as ${builds[0]}"
		else
			echo "   COUNTS DIFFER from ${builds[0]}:"
			diff counts.0 "counts.$j" | sed 's/^/     /'
		fi
	fi
done
b=${builds[0]}
SPOOL_RING_PACKETS=0 SPOOL_TRACE_FORMAT=1 "$b/spool" locks -q -o ref -- sqlite3 :memory: \
	<sql.txt >/dev/null 2>&1
SPOOL_TRACE_FORMAT=2 "$b/spool" decode --trace-out re2 ref >/dev/null 2>&1
"$b/spool" report --locks --json ref 2>/dev/null | sed 's/"dir": "ref"/DIR/' >ref.json
"$b/spool" report --locks --json re2 2>/dev/null | sed 's/"dir": "re2"/DIR/' >re2.json
if [ -s ref.json ] && cmp -s ref.json re2.json; then
	echo "   $b: the format-1 reference and its format 2 rewrite: the same whole report" \
		"($(grep -o '"lock_events": [0-9]*' ref.json))"
else
	echo "   $b: the format-1 reference and its format 2 rewrite DIFFER"
fi

echo "b) cost, best / median of $rounds interleaved rounds"
for j in "${!builds[@]}"; do
	echo "   ${builds[$j]}: trace $(du -sb "t.$j" | cut -f1) bytes;" \
		"$(python3 "$here/trace_classes.py" "t.$j" | awk '$1 ~ /^lock/ { printf "%s %d x %.2f B; ", $1, $2, $4 }')"
done
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
for ((i = 0; i < rounds; i++)); do
	t0=$(date +%s%N)
	run
	ms "$t0" >>wall.nat
	for j in "${!builds[@]}"; do
		b=${builds[$j]}
		rm -rf t
		/usr/bin/time -f "%U %S" -o cpu.tmp "$b/spool" locks -q -o t -- sqlite3 :memory: \
			<sql.txt >/dev/null 2>&1
		awk '{ printf "%d\n", ($1 + $2) * 1000 }' cpu.tmp >>"cpu.$j"
		t0=$(date +%s%N)
		rm -rf t
		"$b/spool" locks -q -o t -- sqlite3 :memory: <sql.txt >/dev/null 2>&1
		ms "$t0" >>"wall.$j"
	done
done
stat() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%d / %d ms", v[1], v[int((NR + 1) / 2)] }'; }
echo "   native sqlite3: wall $(stat wall.nat)"
for j in "${!builds[@]}"; do
	echo "   ${builds[$j]}: wall $(stat "wall.$j"), CPU $(stat "cpu.$j")"
done
echo "locks-sqlite: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
