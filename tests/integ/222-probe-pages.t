#!/bin/bash
# SPDX-License-Identifier: MIT
# 222-probe-pages.t - the probes placed at start are written through one
# window of writable pages per run of pages (agent_probe_commit_all, in
# address order), and every page goes back to its own permissions.
#
# tests/progs/probe_pages.c has eight functions, each alone on its page with
# an unprobed page after it (gaps between the runs), and prints its result
# and the permissions of its executable's mappings. Probed (every function
# with its exits, and every block of main: jumps, int3s and return-address
# exits, with --exits patch too), its output is the native one: no page
# left writable or changed, the same result; every probe is placed and the
# calls per function are the native ones.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 9

ok "the test program builds (gcc -O2 -g)" gcc -O2 -g -o pp "$REPO/tests/progs/probe_pages.c"
native="$(./pp)"
like "$native" 'r-xp' "natively it lists its code mapping"

spool_run probe -q -e 'func:f*' -e 'block:main' -- ./pp
is "$RC" 0 "probed: exit status 0"
is "$OUT" "$native" "probed: its result and the permissions of its pages are the native ones"
placed="$(sed -nE 's/^spool: ([0-9]+) of ([0-9]+) probes placed.*/\1 \2/p' run.err)"
set -- $placed
ok "every probe is placed ($placed)" test -n "$placed" -a "${1:-x}" = "${2:-y}"
"$SPOOL" report --functions --json spool.trace >f.json 2>/dev/null
is "$(json f.json 'sorted("%s %d" % (f["name"], f["calls"]) for f in d["functions"] if f["name"].startswith("f"))' | tr '\n' ' ')" \
	"f0 1 f1 2 f2 3 f3 4 f4 5 f5 6 f6 7 f7 8 " "calls per function: f<i> i+1 times"

spool_run probe -q --exits patch -o patch.trace -e 'func:f*' -e 'block:main' -- ./pp
is "$RC" 0 "--exits patch: exit status 0"
is "$OUT" "$native" "--exits patch: the same result and permissions"
like "$(cat run.err)" ' of [0-9]+ probes placed' "--exits patch: the probes are placed"
