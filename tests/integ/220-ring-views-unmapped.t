#!/bin/bash
# SPDX-License-Identifier: MIT
# 220-ring-views-unmapped.t - spool mapped a thread's ring into its own
# address space when the ring first had data and never unmapped it: after
# a program ran thousands of short threads, spool kept a view of every
# ring ever used (256 rings of 2 MiB: 513 MiB of spool's address space)
# for the rest of the run. A ring's view is now unmapped when the ring is
# freed (its thread ended and everything it wrote is in the trace) and
# mapped again only when a new thread writes into it, so spool holds views
# only of rings in use. Read from /proc/SPOOLPID/maps while spool runs.
. "$(dirname "$0")/lib.sh"

P="$PROGS/shortthreads-finst"
if [ ! -x "$P" ] || ! command -v mkfifo >/dev/null; then
	echo "1..0 # SKIP shortthreads-finst or mkfifo missing"
	exit 0
fi
plan 7

N=5000
mkfifo gate
# views PID: how many views of spool's shared memory PID has mapped (the
# control block, and one per ring it holds)
views() { grep -c 'memfd:spool' "/proc/$1/maps" 2>/dev/null; }

# The burst of threads, then the shell waits on the gate: spool runs on,
# with one thread (the shell's) still alive.
"$SPOOL" locks -q -o t.trace -- /bin/sh -c "'$P' $N 2 >burst.out; read x <gate" \
	</dev/null >run.out 2>run.err &
spid=$!
max=0
for ((i = 0; i < 600; i++)); do
	v=$(views $spid)
	[ "${v:-0}" -gt "$max" ] && max=$v
	grep -q "threads=" burst.out 2>/dev/null && break
	sleep 0.05
done
like "$(cat burst.out 2>/dev/null)" "threads=$N total=$N" "the burst of $N threads ran to its end"
diag "most views of the shared memory seen during the burst: $max"
# Once the collector has reaped the program that ran them, its rings are
# freed: spool keeps a view of the shell's ring and its control block.
settled=""
for ((i = 0; i < 200; i++)); do
	v=$(views $spid)
	if [ -n "$v" ] && [ "$v" -le 3 ]; then settled=$v; break; fi
	sleep 0.05
done
diag "views after the burst: ${settled:-$v}; spool's $(grep VmSize /proc/$spid/status)"
num_cmp "${settled:-${v:-999}}" -le 3 \
	"after the burst spool holds views of the rings in use only (3 at most), not of the $N threads' rings"
echo go >gate
wait $spid
RC=$?
ERR="$(cat run.err)"
check_sanitizer run.err "spool locks"
is_rc 0 "spool locks exits 0"
is "$(summary_lost)" 0 "nothing lost"
report_json t.trace
is_rc 0 "report --locks --json reads the trace"
is "$(lock_stat report.json shared_lock "$F_ACQ")" "$N" "every acquisition of shared_lock is counted"
is "$(json report.json 'len(d["threads"])')" $((N + 2)) "the report has the shell, main and $N threads"
done_testing
