#!/bin/bash
# SPDX-License-Identifier: MIT
# 65-path.t - spool path, the thread path (doc/path.md), on the design's
# producer/consumer example (tests/progs/path_prodcons-finst.c, built with
# -finstrument-functions): the exact records in order with their threads and
# objects, --check naming the one function never called, --show-exits, --thread
# and --json, all threads of a parallel run, and the refusals: a program
# without -finstrument-functions when its hooks are asked for (without
# --functions, spool probes it: 96-path-probes.t), a trace recorded by
# spool locks.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/path_prodcons-finst"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi

plan 30

# records FILE: the path's records without the comment lines.
records() { grep -v '^#' "$1"; }

# --- the deterministic single-item run ---
spool_run path -w path.txt -- "$PROG"
is_rc 0 "spool path -- path_prodcons-finst exits 0"
is "$OUT" "consumed 42" "  the program's own stdout is untouched"
is "$(records path.txt | awk '{print $4}' | tr '\n' ' ')" \
	"main* producer lock put unlock consumer lock get unlock " \
	"  the functions in order: main (marked), then the producer's, then the consumer's"
is "$(records path.txt | awk '{print $5}' | tr '\n' ' ')" \
	"sem:buf_sem none sem:buf_sem data sem:buf_sem none sem:buf_sem data sem:buf_sem " \
	"  objects: the semaphore for lock/unlock (and main's sem_init), data for put/get"
is "$(records path.txt | awk '{print $1}' | tr '\n' ' ')" "1 2 3 4 5 6 7 8 9 " \
	"  sequence numbers 1..9"
# -o names the trace directory, as in spool locks/record/probe; the path
# goes to stdout. -o FILE for the path's file (the old spelling) still works
# where -o cannot be a trace, with a warning naming -w.
spool_run path -q -o own.trace -- "$PROG"
ok "spool path -o DIR -- PROGRAM puts the trace in DIR" test -f own.trace/.spool/summary
is "$(grep -v '^#' <<<"$OUT" | grep -c ' producer ')" 1 "  and prints the path on stdout"
spool_run path -o old.txt own.trace
ok "spool path -o FILE TRACE (the old spelling) still writes the path to FILE" \
	grep -q ' producer ' old.txt
like "$ERR" "use -w old.txt" "  with a warning naming -w"
threads=$(records path.txt | awk '{print $3}')
t_main=$(sed -n 1p <<<"$threads")
t_prod=$(sed -n 2p <<<"$threads")
t_cons=$(sed -n 6p <<<"$threads")
is "$(sed -n 2,5p <<<"$threads" | sort -u)" "$t_prod" "  producer, lock, put, unlock on one thread"
is "$(sed -n 6,9p <<<"$threads" | sort -u)" "$t_cons" "  consumer, lock, get, unlock on another"
ok "  three different threads ($t_main, $t_prod, $t_cons)" \
	test "$t_main" != "$t_prod" -a "$t_prod" != "$t_cons" -a "$t_main" != "$t_cons"
like "$t_main" "^T0/[0-9]+$" "  threads are T<index>/<tid>, main is T0"
ok "  times never go back" awk '!/^#/ { if ($2 < last) exit 1; last = $2 }' path.txt

# --- --check on the recorded trace ---
spool_run path --check spool.trace
is_rc 1 "spool path --check exits 1: a function was never entered"
like "$OUT" "^7 of 8 functions entered" "  7 of 8 functions entered"
like "$OUT" "never entered: never_called +path_prodcons-finst\\.c:[0-9]+" \
	"  never_called is listed, with its file and line"
is "$(grep -c 'never entered' <<<"$OUT")" 1 "  and nothing else"

# --- --show-exits, --thread, --json ---
spool_run path --show-exits spool.trace
is "$(grep -v '^#' run.out | awk '{print $4}' | grep -c '^>')" 9 "--show-exits: 9 entries"
is "$(grep -v '^#' run.out | awk '{print $4}' | grep -c '^<')" 9 "  and 9 exits"
tp=${t_prod%%/*}
spool_run path --thread "${tp#T}" spool.trace
is "$(grep -v '^#' run.out | awk '{print $4}' | tr '\n' ' ')" "producer lock put unlock " \
	"--thread ${tp#T}: only the producer's records"
spool_run path --json spool.trace
is_rc 0 "--json exits 0"
is "$(python3 -c 'import json,sys; d=json.load(open("run.out")); print(" ".join(r["function"]+":"+",".join(r["objects"]) for r in d["records"]))')" \
	"main:sem:buf_sem producer: lock:sem:buf_sem put:data unlock:sem:buf_sem consumer: lock:sem:buf_sem get:data unlock:sem:buf_sem" \
	"  JSON records: the same functions and objects"

# --- a parallel run: every thread is in the path ---
spool_run path -q -w par.txt -- "$PROG" 3
is_rc 0 "spool path -- path_prodcons-finst 3 exits 0"
is "$(records par.txt | awk '{print $3}' | sort -u | wc -l)" 7 "  7 threads in the path (main + 3 producers + 3 consumers)"
is "$(records par.txt | awk '$4 == "lock"' | wc -l)" 18 "  18 lock() calls (6 threads x 3 rounds)"

# --- refusals ---
spool_run path --entries=finstrument -- "$PROGS/lockcount" 2 10
is_rc 1 "a program built without -finstrument-functions, hooks asked for: exit 1"
like "$ERR" "no function entries.*-finstrument-functions" "  saying how to get function entries"
spool_run locks -q -- "$PROG"
spool_run path spool.trace
is_rc 1 "a trace of the same program recorded by spool locks has no function entries"

# --- a stripped binary: only .dynsym ---
cp "$PROG" stripped && strip stripped
spool_run path --check -- ./stripped
like "$ERR" "stripped.*\\.dynsym" "--check on a stripped binary says only .dynsym is known"

done_testing
