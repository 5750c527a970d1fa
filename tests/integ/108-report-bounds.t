#!/bin/bash
# SPDX-License-Identifier: MIT
# 108-report-bounds.t - small crafted traces made spool report take
# gigabytes: report --vars kept a table of every time probe by every stream
# id (a vars file of 2000 time lines and one stream renumbered 60000: 8 GB,
# 60 s), report --coverage added a line for every row of the line table
# under every block (blocks spanning a large binary: 5 GB from a 200 KB
# coverage file). Each now uses memory bounded by its input: the (time,
# stream) pairs its events reach, one line per row of the line table.
# Max RSS measured with /usr/bin/time (the checks are skipped without it).
# And report --sys --json looked up every thread's I/O lines, processes and
# allocator lines by walking all of them: a crafted sys file of 200,000
# threads ran for minutes; a command on a crafted trace must end.
. "$(dirname "$0")/lib.sh"
# trace_craft.py edits format 1's layout: these traces are written in it
# (format 1 is still read: doc/trace-format.md, "Versions")
export SPOOL_TRACE_FORMAT=1

plan 7

CRAFT="python3 $REPO/tests/integ/trace_craft.py"
# 64 MiB: the normal build takes 5 to 9 MiB on these traces, the ASan build
# more; the traces below are sized so that the old tables took about 1 GB.
RSS_MAX=65536

# max_rss_kb ARGS...: run spool, its maximum resident set in KiB in RSS
# (empty when /usr/bin/time is missing); status in RC, stdout in run.out.
max_rss_kb() {
	RSS=
	if [ ! -x /usr/bin/time ]; then
		return
	fi
	/usr/bin/time -f %M -o rss.txt timeout -k 5 60 "$SPOOL" "$@" >run.out 2>run.err
	RC=$?
	check_sanitizer run.err "spool $*"
	RSS=$(tail -n 1 rss.txt)
}

# --- report --vars ---------------------------------------------------------
spool_run probe -q -e time:worker -o tv -- "$PROGS/lockcount" 2 5
is_rc 0 "a trace of a time probe"
$CRAFT renumber tv 2 60000
for i in $(seq 1 200); do echo "time $i call 1 2 t$i"; done >>tv/.spool/vars
size=$(du -sb --apparent-size tv | cut -f1)
max_rss_kb report --vars tv
if [ -n "$RSS" ]; then
	num_cmp "$RSS" -lt "$RSS_MAX" \
		"200 time probes, a stream numbered 60000, ${size} bytes: report --vars uses ${RSS} KiB"
	like "$(cat run.out)" 'time:worker +2 ' "  and still times the real probe"
else
	skip 2 "/usr/bin/time is not installed"
fi

# --- report --coverage -------------------------------------------------------
spool_run probe -q -e block:worker -o cv -- "$PROGS/lockcount" 2 5
# blocks spanning the whole of a binary with a large line table (spool)
for i in $(seq 1 400); do
	echo "block $((i + 100)) jump 0x0 0xffffffffffff 1 $SPOOL f$((i % 20))"
done >>cv/.spool/coverage
size=$(du -sb --apparent-size cv | cut -f1)
max_rss_kb report --coverage cv
if [ -n "$RSS" ]; then
	num_cmp "$RSS" -lt "$RSS_MAX" \
		"400 blocks spanning spool's binary, ${size} bytes: report --coverage uses ${RSS} KiB"
	like "$(cat run.out)" 'blocks [0-9]+ of [0-9]+ hit' "  and still reports the blocks"
else
	skip 2 "/usr/bin/time is not installed"
fi

# --- report --sys ---------------------------------------------------------------
spool_run probe -q -e sys:io -o sy -- "$PROGS/lockcount" 2 5
python3 -c '
import sys
with open(sys.argv[1], "a") as f:
    for i in range(200000):
        f.write("thread %d %d %d 1 none\nio %d read file 1 1\nrss %d 1 1\n" % (i, i, i, i, i))
' sy/.spool/sys
T_TIMEOUT=20 spool_run report --sys --json sy
is "$RC" 0 "report --sys --json of 200,000 threads and processes ends (20 s at most)"
num_cmp "$(json run.out 'len(d["rss"])')" -eq 200000 "  with every process's samples"

done_testing
