#!/bin/bash
# SPDX-License-Identifier: MIT
# 156-symbol-cache.t - the symbolizer's cache (src/util/symbolize.c) changes
# no name: every report and export that names call sites prints the same
# bytes with the cache as without it (SPOOL_SYMBOL_CACHE=0, every lookup
# through libdwfl), on a probe trace with callers in two threads, a lock
# trace with stacks (the same return addresses asked again and again), and a
# trace of a program that forks (one library in two processes: the per
# module cache answers for the second). And the names are the right ones:
# the callers of probe_calls' functions are the functions that call them.
. "$(dirname "$0")/lib.sh"

plan 13

# same_both DESC ARGS...: spool ARGS with and without the cache, same output.
same_both() {
	local desc="$1"
	shift
	SPOOL_SYMBOL_CACHE=0 spool_run "$@"
	cp run.out nocache.out
	is_rc 0 "$desc: exits 0 without the cache"
	spool_run "$@"
	if cmp -s run.out nocache.out && [ -s run.out ]; then
		pass "  the same output with the cache ($(wc -c <run.out) bytes)"
	else
		fail "  the same output with the cache"
		diff nocache.out run.out | head -20 | sed 's/^/# /'
	fi
}

spool_run probe -q -o probe.trace -e 'func:probe_*' -- "$PROGS/probe_calls" 2000
is_rc 0 "probe_calls runs under spool probe"
same_both "report --functions" report --functions --limit 0 probe.trace
like "$OUT" "probe_leaf_add .*
 *<- (main|worker)" "  probe_leaf_add's callers are named"
like "$OUT" " +<- probe_fib " "  probe_fib is named as a caller (it recurses)"
same_both "export --chrome (probe)" export --chrome -w - probe.trace

spool_run locks -q --stacks 8 -o locks.trace -- "$PROGS/lockcount" 3 3000
same_both "report --locks --json (stacks)" report --locks --json locks.trace
same_both "export --chrome (locks)" export --chrome -w - locks.trace

spool_run locks -q -o fork.trace -- "$PROGS/forker"
if [ "$RC" = 0 ]; then
	same_both "report --locks (two processes)" report --locks --limit 0 fork.trace
else
	skip 2 "forker did not run under spool locks (rc $RC)"
fi

done_testing
