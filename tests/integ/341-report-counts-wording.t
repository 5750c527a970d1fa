#!/bin/bash
# SPDX-License-Identifier: MIT
# 341-report-counts-wording.t - the reports' counts read as English: one
# call that never returns is "1 call without a seen exit" (not "1 calls"),
# and a coverage run that placed only branch probes gives no block figure
# ("blocks 0 of 0 hit (0.0%)" read as every block missed); a block-only run
# gives no branch figure. The program is built here at -O0: t_quit is
# called once and exits the program, t_work returns.
. "$(dirname "$0")/lib.sh"

CC="$(command -v cc || command -v gcc || true)"
if [ -z "$CC" ]; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi
plan 12

cat >t.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) void t_quit(int n)
{
	if (n > 1)
		printf("quit %d\n", n);
	fflush(stdout);
	exit(0);
}
__attribute__((noinline)) int t_work(int n)
{
	return n > 2 ? n * 3 : n + 1;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	printf("%d\n", t_work(n));
	t_quit(n);
}
C
if ! "$CC" -O0 -g -o t t.c; then
	fail "t.c builds"
	done_testing
	exit
fi
native="$(./t 3)"

spool_run probe -q -e 'func:t_*' -- ./t 3
is "$RC $OUT" "0 $native" "probe func:t_*: exit 0, output unchanged" || show_run
spool_run report --functions spool.trace
is_rc 0 "spool report --functions"
like "$OUT" "\\(1 call without a seen exit: still open where its thread's trace ends\\)" \
	"t_quit, called once, never returned: \"1 call without a seen exit\" (open at the end: 397)"
unlike "$OUT" '[^0-9]1 calls' "no \"1 calls\" anywhere in the report"

spool_run probe -q -e 'branch:t_*' -- ./t 3
is "$RC $OUT" "0 $native" "probe branch:t_* (branches only): exit 0, output unchanged" || show_run
spool_run report --coverage spool.trace
is_rc 0 "spool report --coverage"
like "$OUT" '^coverage: 2 functions; branches 2: [0-9]+ taken, [0-9]+ not taken' \
	"the summary counts the 2 branch probes"
unlike "$OUT" 'blocks [0-9]+ of' "and says nothing of blocks, none being probed"

spool_run probe -q -e 'block:t_work' -- ./t 3
is_rc 0 "probe block:t_work (blocks of one function only)" || show_run
spool_run report --coverage spool.trace
like "$OUT" '^coverage: 1 function; blocks [1-9][0-9]* of [1-9][0-9]* hit' \
	"the summary: \"1 function\" and its blocks"
unlike "$OUT" '^coverage:.*branches' "and no branch figure, none being probed"
unlike "$OUT" '\(0\.0%\)' "no 0.0% figure for a kind of probe not placed"

done_testing
