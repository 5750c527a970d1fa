#!/bin/bash
# SPDX-License-Identifier: MIT
# 47-short-threads.t - a program that creates many short threads over its
# life, two alive at a time (a thread per request). spool used to give each
# thread a ring slot for good: the 257th thread got none, its events were
# lost, and `spool record` SIGKILLed the program (exit 137) and blamed it
# ("it spins in code without calls the agent sees"). A slot is now used
# again once its thread has ended and the collector has drained it; the
# trace still tells the threads that shared a ring apart. 4,000 threads
# here (100,000 in a manual run, doc/record.md).
. "$(dirname "$0")/lib.sh"

plan 32

P="$PROGS/shortthreads-finst"
N=4000

# spool locks: every acquisition counted, every thread its own row.
spool_run locks -o locks.trace -- "$P" "$N" 2
is_rc 0 "locks: the program runs to its end"
like "$OUT" "threads=$N total=$N" "locks: the program's own count is right"
is "$(summary_lost)" 0 "locks: nothing lost"
report_json locks.trace
is_rc 0 "report --locks --json of the trace"
is "$(lock_stat report.json shared_lock "$F_ACQ")" "$N" "every acquisition of shared_lock is counted"
is "$(json report.json '[l["threads"] for l in d["locks"] if l["name"] == "shared_lock"][0]')" \
	"$N" "shared_lock was taken by $N different threads"
is "$(json report.json 'len(d["threads"])')" $((N + 1)) "the report has main and $N threads"
is "$(json report.json 'len(set(t["index"] for t in d["threads"]))')" $((N + 1)) \
	"each with its own index, though 256 rings served them all"
num_cmp "$(json report.json 'max(t["acquisitions"] for t in d["threads"])')" -eq 1 \
	"no thread is shown with another's acquisitions"

# spool record + replay, both modes: the same output, no kill (sync mode
# with fewer threads: its replay is the slower, and 256 were enough to fail).
for mode in serial sync; do
	n=$N
	[ "$mode" = sync ] && n=2000
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$P" "$n" 2
	is_rc 0 "record ($mode, $n threads): exits with the program's status, not killed"
	unlike "$ERR" 'stuck|incomplete' "record ($mode): complete"
	like "$OUT" "threads=$n total=$n" "record ($mode): the program's output"
	cp run.out "$mode.rec.out"
	replays_same 1 0 "$mode.rec.out" -q "$mode.trace"
	is "$SAME" 1 "replay ($mode): the same output"
done

# spool path: each thread's call under its own thread.
spool_run path -w path.txt -- "$P" 2000 2
is_rc 0 "path: runs"
is "$(grep -c ' count_one ' path.txt)" 2000 "path: every thread's call is there"
is "$(grep ' count_one ' path.txt | awk '{print $3}' | cut -d/ -f1 | sort -u | wc -l)" 2000 \
	"path: under 2000 different threads"

# spool probe: the function report counts each thread's calls apart (all of its
# 2000 per-thread rows: --limit 0).
spool_run probe -e func:count_one --limit 0 -o probe.trace -- "$P" 2000 2
is_rc 0 "probe: runs"
like "$ERR" "count_one +2000 " "probe: every call is counted (the report is on stderr)"
is "$(awk '/^per thread:/ {p = 1} p && $2 == "count_one" && $3 == 1' run.err | wc -l)" 2000 \
	"probe: one call on each of 2000 threads, not 256 threads with several"

# spool probe -e sys:cpu: a ring's line sums the CPU time of every thread
# that used it (600 threads of at least 1 ms each: 0.6 s at least; only
# the last thread of each of the 256 rings made about 0.26 s).
spool_run probe -e sys:cpu -o sys.trace -- "$P" 600 2 1 1000
is_rc 0 "probe sys:cpu: runs"
num_cmp "$(awk '$1 == "thread" {s += $5} END {printf "%d", s / 1e6}' sys.trace/.spool/sys)" \
	-ge 600 "probe sys:cpu: the threads' CPU time adds up to 600 ms at least"

# More threads alive at once than rings (300 threads waiting for the run
# token, 256 rings; they wait for each other at a barrier, so all 300 are
# alive at once however slowly main creates them): spool's own limit. The program runs on and is never
# blamed; the recording says it is incomplete and why.
spool_run record -o over.trace -- "$P" 600 300 1 0 1
is_rc 4 "record, 300 threads alive at once: the program is not killed (exit 4: the trace is incomplete)"
like "$OUT" "threads=600 total=600" "record, 300 alive: the program runs to its end"
like "$ERR" "more threads were alive at once than spool has rings" \
	"record, 300 alive: spool names its own limit"
unlike "$ERR" "spins in code|stuck" "record, 300 alive: the program is not blamed"
spool_run replay -q over.trace
is_rc 4 "replay refuses the incomplete recording"
spool_run locks --max-threads 4 -o over-locks.trace -- "$PROGS/lockcount" 8 200 100
num_cmp "$(summary_lost)" -gt 0 "locks, 8 threads alive and 4 rings: the loss is counted"
like "$ERR" "no free ring" "locks, 8 threads alive and 4 rings: and said why"

done_testing
