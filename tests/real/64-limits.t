#!/bin/bash
# SPDX-License-Identifier: MIT
# 64-limits.t - a program keeps its own limits, less the few MiB and the
# one descriptor spool states (doc/locks.md, "What spool takes from the
# program"). Issue 12: the agent mapped a 2.15 GB region into every target,
# so a program under `ulimit -v 262144` that allocates 252 MB alone got 0
# under spool. Debian's python3 finds the largest bytearray it can
# allocate (1 MiB steps) under `ulimit -v 262144`, and how many files it
# can open under `ulimit -n 64`, alone and under each command; each
# command must leave it within 8 MiB and 1 descriptor of what it has alone.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
if [ "$SPOOL_ASAN" = 1 ]; then
	# AddressSanitizer reserves terabytes of shadow address space: the
	# host tool cannot start under ulimit -v.
	echo "1..0 # SKIP spool built with AddressSanitizer cannot run under ulimit -v"
	exit 0
fi
plan 10

cat >maxalloc.py <<'PY'
lo, hi = 0, 4096
while hi - lo > 1:
    mid = (lo + hi) // 2
    try:
        b = bytearray(mid << 20)
        del b
        lo = mid
    except MemoryError:
        hi = mid
print(lo)
PY
cat >maxfd.py <<'PY'
import os
fds = []
try:
    while True:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError:
    pass
print(len(fds))
PY

# under_limit OPT VALUE SCRIPT [SPOOL ARGS...]: SCRIPT's answer under
# `ulimit OPT VALUE`, alone (no SPOOL ARGS) or under spool.
under_limit() {
	local opt=$1 val=$2 script=$3
	shift 3
	if [ $# -eq 0 ]; then
		(ulimit "$opt" "$val" && timeout 60 "$REAL_PY" "$script") 2>/dev/null
	else
		(ulimit "$opt" "$val" && timeout 60 "$SPOOL" "$@" -- "$REAL_PY" "$script") 2>err.txt
	fi
}

native=$(under_limit -v 262144 maxalloc.py)
num_cmp "$native" -gt 200 "alone, python3 allocates ${native} MiB under ulimit -v 262144"
for cmd in "locks -q -o l.trace" "probe -q -o p.trace -e func:PyDict_*" \
	"record -q -o r.trace" "path -q -o pa.trace -w pa.txt"; do
	# shellcheck disable=SC2086 # the command's words
	got=$(under_limit -v 262144 maxalloc.py $cmd)
	[ -n "$got" ] || diag "$(cat err.txt)"
	# spool path probes every function python3 has (7,089): about 650
	# bytes each (probe table, agent state, trampolines; doc/locks.md)
	allow=8
	[ "${cmd%% *}" = path ] && allow=13
	num_cmp "$got" -ge $((native - allow)) "spool ${cmd%% *} leaves it ${got:-nothing} MiB ($allow MiB less at most)"
done

native=$(under_limit -n 64 maxfd.py)
num_cmp "$native" -gt 50 "alone, python3 opens $native files under ulimit -n 64"
for cmd in "locks -q -o l.trace" "probe -q -o p.trace -e func:PyDict_*" \
	"record -q -o r.trace" "path -q -o pa.trace -w pa.txt"; do
	# shellcheck disable=SC2086 # the command's words
	got=$(under_limit -n 64 maxfd.py $cmd)
	[ -n "$got" ] || diag "$(cat err.txt)"
	num_cmp "$got" -ge $((native - 1)) "spool ${cmd%% *} leaves it ${got:-no} files (1 less at most)"
done
done_testing
