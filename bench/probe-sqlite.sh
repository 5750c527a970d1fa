#!/bin/bash
# SPDX-License-Identifier: MIT
# probe-sqlite.sh - what `spool probe -e 'func:libsqlite3.so.0:*'` costs a
# real workload (issue 16: <= 3x native; uftrace on the same run is the
# peer): Debian's sqlite3 running a script of 20,000 single-row INSERTs into
# an indexed in-memory table and a few SELECTs, every exported libsqlite3
# function probed at entry and exit (about 4 million hits).
#
# The figure is the CPU time of the sqlite3 process alone (perf's cpu-clock
# samples at 10 kHz, by command name): what the probes cost the program,
# apart from spool's own process (planning, the collector) and from the
# machine's load, which a wall clock on a shared VM mixes in. Native, spool
# and uftrace (`-P '.@libsqlite3.so.0'`, its dynamic patching of the same
# library) run interleaved, RUNS rounds (5 unless set), and each prints its
# best and median round; the ratios are of the best rounds. Wall clock of the
# whole command beside it, best round. Asserts nothing.
#   bench/probe-sqlite.sh [BUILD_DIR]
# RUNS (environment): rounds, 5 unless set.
set -u
B="${1:-build}"
B="$(cd "$B" && pwd)"
SPOOL="$B/spool"
RUNS="${RUNS:-5}"
SQ="$(command -v sqlite3 || true)"
[ -x "$SPOOL" ] || { echo "probe-sqlite.sh: build spool first"; exit 0; }
[ -n "$SQ" ] || { echo "probe-sqlite.sh: sqlite3 is not installed: no figure"; exit 0; }
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o /dev/null true >/dev/null 2>&1; then
	echo "probe-sqlite.sh: perf cannot sample here (perf_event_paranoid?): no figure"
	exit 0
fi
T="$(mktemp -d /tmp/spool-bench-sqlite.XXXXXX)"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

# 20,000 INSERTs with values from a fixed sequence (no RNG: the same
# script every run), then a few SELECTs
awk 'BEGIN {
	print "create table t(a integer primary key, b text, c real);"
	print "create index tb on t(b);"
	x = 7
	for (i = 1; i <= 20000; i++) {
		x = (x * 1103515245 + 12345) % 2147483648
		printf "insert into t values(%d, %cv%d%c, %d.%d);\n", i, 39, x % 1000000, 39, x % 97, x % 1000
	}
	print "select count(*), sum(a), max(b) from t;"
	print "select b from t where a between 100 and 105;"
	print "select count(*) from t where b like %cv1%%%c;", 39, 39
	print "select avg(c) from t where a % 7 = 0;"
}' | sed "s/%cv1%%%c/'v1%'/" >"$T/q.sql"

# cpu CMD...: ms of CPU of the sqlite3 process, then the wall ms of the command
cpu() {
	local t0 t1 v
	t0="$(date +%s%N)"
	perf record -q -e cpu-clock -F 10000 -o "$T/p.data" -- "$@" <"$T/q.sql" >/dev/null 2>&1
	t1="$(date +%s%N)"
	v="$(perf report -i "$T/p.data" --sort comm -F comm,sample --stdio 2>/dev/null |
		awk '$1 == "sqlite3" { printf "%.1f", $2 / 10 }')"
	echo "${v:-nan} $(((t1 - t0) / 1000000))"
}

NAT=("$SQ" :memory:)
SPL=("$SPOOL" probe -q -o "$T/sq.trace" -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory:)
# --clock=none: no time per event (doc/trace-format.md, "Traces without
# per-event time")
SPN=("$SPOOL" probe -q --clock=none -o "$T/sqn.trace" -e 'func:libsqlite3.so.0:*' -- "$SQ" :memory:)
UFT=(uftrace record -d "$T/uf.data" --force -P '.@libsqlite3.so.0' "$SQ" :memory:)
have_uf=0
command -v uftrace >/dev/null && have_uf=1
# prime the plan cache and the page cache
"${SPL[@]}" <"$T/q.sql" >/dev/null 2>&1
: >"$T/nat" >"$T/spl" >"$T/spn" >"$T/uft"
for i in $(seq "$RUNS"); do
	cpu "${NAT[@]}" >>"$T/nat"
	cpu "${SPL[@]}" >>"$T/spl"
	cpu "${SPN[@]}" >>"$T/spn"
	[ $have_uf = 1 ] && cpu "${UFT[@]}" >>"$T/uft"
done
# stat FILE COLUMN: "best median" of the column
stat() { awk -v c="$2" '$c != "nan" {print $c}' "$1" | sort -g |
	awk '{v[NR] = $1} END {if (!NR) print "nan nan"; else print v[1], v[int((NR + 1) / 2)]}'; }
read -r nb nm <<<"$(stat "$T/nat" 1)"
read -r sb sm <<<"$(stat "$T/spl" 1)"
read -r nw _ <<<"$(stat "$T/nat" 2)"
read -r sw _ <<<"$(stat "$T/spl" 2)"
hits="$("$SPOOL" report --functions --json "$T/sq.trace" 2>/dev/null | python3 -c '
import json, sys
try:
    print(sum(2 * f["calls"] for f in json.load(sys.stdin)["functions"]))
except Exception:
    print("nan")' 2>/dev/null)"
r() { awk "BEGIN{ if (\"$2\" == \"nan\" || $2 == 0) print \"nan\"; else printf \"%.2f\", $1 / $2 }"; }
echo "probe: sqlite3, 20000 INSERTs and 4 SELECTs, every libsqlite3 function probed ($hits probe hits); CPU ms of the sqlite3 process, best (median) of $RUNS"
printf "  native          %7s ms (%s)   wall %s ms\n" "$nb" "$nm" "$nw"
printf "  spool probe     %7s ms (%s)   wall %s ms   %s x native\n" "$sb" "$sm" "$sw" "$(r "$sb" "$nb")"
read -r zb zm <<<"$(stat "$T/spn" 1)"
read -r zw _ <<<"$(stat "$T/spn" 2)"
printf "  --clock=none    %7s ms (%s)   wall %s ms   %s x native\n" "$zb" "$zm" "$zw" "$(r "$zb" "$nb")"
if [ $have_uf = 1 ]; then
	read -r ub um <<<"$(stat "$T/uft" 1)"
	read -r uw _ <<<"$(stat "$T/uft" 2)"
	printf "  uftrace -P      %7s ms (%s)   wall %s ms   %s x native\n" "$ub" "$um" "$uw" "$(r "$ub" "$nb")"
	printf "  spool / uftrace %s (CPU of the program), %s (wall)\n" "$(r "$sb" "$ub")" "$(r "$sw" "$uw")"
	printf "  spool --clock=none / uftrace %s (CPU of the program), %s (wall)\n" "$(r "$zb" "$ub")" "$(r "$zw" "$uw")"
else
	echo "  uftrace: not installed (apt-get install uftrace to compare)"
fi
