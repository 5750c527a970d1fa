#!/bin/bash
# SPDX-License-Identifier: MIT
# 195-probe-retaddr.t - exits through the return address (doc/probe.md,
# "Exits through the return address"). tests/progs/probe_retaddr.c built
# with the compiler's defaults and -O2 has functions whose ret has no
# 5-byte window: with --exits patch they are int3 probes; by default
# --list shows them as retaddr and no exit is an int3. Run by default and
# with --exits retaddr (every function's exits swapped: recursion, a longjmp
# out of a recursion, a signal handler on the same thread, a second thread,
# a tail call), the program's output is its own, the calls per function
# equal its own counts, every call that returned has its exit (only the
# ones longjmp left have none, at most as many as it left), no exit lacks
# its entry, and a call that sleeps 2 ms lasts at least 2 ms in the report.
. "$(dirname "$0")/lib.sh"

CC="$(command -v cc || command -v gcc || true)"
if [ -z "$CC" ]; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi
plan 18

if ! "$CC" -O2 -g -o ra "$REPO/tests/progs/probe_retaddr.c" -lpthread; then
	fail "probe_retaddr.c builds at -O2"
	done_testing
	exit
fi
native="$(./ra 1000 50)"

spool_run probe --list --exits patch -e 'func:ra_*' ./ra
like "$OUT" '^ra_[a-z]+ +exit +int3 ' "--exits patch: some -O2 exits need an int3 (no window)"
spool_run probe --list -e 'func:ra_*' ./ra
is_rc 0 "--list succeeds"
unlike "$OUT" ' exit +int3 ' "by default no exit is an int3"
like "$OUT" '^ra_[a-z]+ +exit +retaddr +\+0x0 .*instead of an int3' \
	"... those functions' exits go through the return address, and --list says why"
like "$OUT" 'retaddr \(exits through the return address\)' "the summary counts them"

# check MODE: the run's output and the report's counts
check() {
	local mode="$1"
	spool_run probe -q --exits "$mode" -e 'func:ra_*' -- ./ra 1000 50
	is_rc 0 "$mode: exit 0" || show_run
	is "$OUT" "$native" "$mode: the program's output is its own"
	spool_run report --functions --json spool.trace
	echo "$OUT" >funcs.json
	got="$(json funcs.json 'sorted("%s %d" % (f["name"], f["calls"]) for f in d["functions"])')"
	is "$got" "$(echo "$native" | grep '^ra_' | sort)" \
		"$mode: calls per function equal the program's own counts"
	is "$(json funcs.json 'sum(f["no_exit"] for f in d["functions"] if f["name"] != "ra_jump")') $(json funcs.json 'd["unmatched_exits"]')" \
		"0 0" "$mode: every call that returned has its exit, every exit its entry"
	jumped="$(echo "$native" | sed -n 's/^jumped //p')"
	lost="$(json funcs.json '[f["no_exit"] for f in d["functions"] if f["name"] == "ra_jump"][0]')"
	ok "$mode: only the calls longjmp left have no exit ($lost of $jumped)" \
		test "$lost" -gt 0 -a "$lost" -le "$jumped"
	min="$(json funcs.json '[f["min_ns"] for f in d["functions"] if f["name"] == "ra_sleepy"][0]')"
	num_cmp "$min" -ge 2000000 "$mode: the call that sleeps 2 ms lasts at least 2 ms (${min} ns)"
}
check auto
spool_run probe --list --exits retaddr -e 'func:ra_*' ./ra
unlike "$OUT" ' exit +(jump|int3) ' "--exits retaddr: every exit goes through the return address"
check retaddr

done_testing
