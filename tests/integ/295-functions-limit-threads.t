#!/bin/bash
# SPDX-License-Identifier: MIT
# 295-functions-limit-threads.t - --limit N cuts every table of the function
# report (issue 17), the per-thread table too: N rows, those with the most
# calls, and a line saying how many more; the function table says how many
# it left out as well; --limit 0 and --json keep every row. Before, the
# per-thread table had a row per (thread, function) whatever --limit said
# (2000 rows for 2000 threads).
. "$(dirname "$0")/lib.sh"

CALLS="$PROGS/probe_calls"
[ -x "$CALLS" ] || { echo "1..0 # SKIP $CALLS is not built"; exit 0; }
plan 10

# thread_rows TEXT: the per-thread table's rows ("tid function calls").
thread_rows() { sed -n '/^per thread:/,$p' <<<"$1" | grep -E '^[0-9]+ '; }

# probe_calls: main calls probe_tiny 1000, probe_leaf_add 1000, probe_fib
# 465 times and probe_twice once; its worker probe_leaf_add 1000 times and
# probe_twice once: 6 rows, 3 of them with 1000 calls
spool_run probe -q -e 'func:probe_*' -o p.trace -- "$CALLS"
is_rc 0 "spool probe of probe_calls"
spool_run report --functions --limit 0 p.trace
all=$(thread_rows "$OUT")
is "$(wc -l <<<"$all")" 6 "--limit 0: the per-thread table has all 6 rows"
unlike "$OUT" "more \(--limit 0" "  and no 'more' line"

spool_run report --functions --limit 3 p.trace
cut3=$(thread_rows "$OUT")
is "$(wc -l <<<"$cut3")" 3 "--limit 3: the per-thread table has 3 rows"
is "$(awk '{print $3}' <<<"$cut3" | tr '\n' ' ')" \
	"$(awk '{print $3}' <<<"$all" | sort -rn | head -n 3 | tr '\n' ' ')" \
	"  those with the most calls"
is "$(awk '{print $1}' <<<"$cut3" | sort -u | wc -l)" 2 "  of both threads"
like "$(sed -n '/^per thread:/,$p' <<<"$OUT")" "^  \.\.\. 3 more \(--limit 0 shows all\)" \
	"  and it says 3 more"
like "$(sed -n '/^function  *calls/,/^$/p' <<<"$OUT")" "^  \.\.\. 1 more \(--limit 0 shows all\)" \
	"  the function table (3 of 4 functions) says 1 more"

spool_run report --functions --json --limit 3 p.trace
is "$(json run.out 'sum(len(f["threads"]) for f in d["functions"])')" 6 \
	"--json --limit 3: all 6 (thread, function) pairs"

# the report spool probe prints at the end cuts the same way
spool_run probe -e 'func:probe_*' --limit 2 -o p2.trace -- "$CALLS"
is "$(thread_rows "$ERR" | wc -l)" 2 "spool probe --limit 2: 2 per-thread rows in its report"
done_testing
