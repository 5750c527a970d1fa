#!/bin/bash
# SPDX-License-Identifier: MIT
# 111-many-processes.t - a fork-heavy program (a shell script, make, a server
# forking per connection) is traced whole: spool's process slots and the
# rings of processes that ended are given back, so hundreds of children one
# after another (every tenth exec'ing /bin/true) lose nothing and each keeps
# its maps (one set per image: an exec'd image's beside its forked
# parent's, proc/<pid>.exec0.maps). Before, the 65th process got no slot (its maps silently missing)
# and the 257th thread no ring (its events lost). More processes alive at
# once than --max-procs allows is counted: the summary, spool info and
# spool report say it the same way, and the run exits 4.
. "$(dirname "$0")/lib.sh"

plan 21

# Past the defaults: 64 process slots and 256 rings.
if [ "$SPOOL_ASAN" = 1 ]; then N=300; else N=400; fi
NPROC=$((N + N / 10 + 1)) # children, their exec'd /bin/true, the parent

spool_run locks -q -- "$PROGS/forkmany" seq "$N" 10
is_rc 0 "forkmany seq $N (one child after another) under spool exits 0"
is "$OUT" "children=$N" "  its output is its own"
is "$(summary_lost)" 0 "  nothing lost"
unlike "$ERR" "incomplete|no process slot" "  no warning"
is "$(trace_summary spool.trace processes)" "$NPROC" "  every process is in the trace"
is "$(trace_summary spool.trace lost_no_proc)" 0 "  each found a process slot"
is "$(ls spool.trace/.spool/proc/ | grep -c '\.maps$')" "$NPROC" \
	"  each process's maps are in the trace (each image's)"
is "$(ls spool.trace/.spool/proc/ | grep -c '\.exec0\.maps$')" "$((N / 10))" \
	"  the exec'd children keep the maps of the image before the exec"
report_json spool.trace
is "$RC" 0 "  the report reads the trace"
is "$(lock_stat report.json child_lock "$F_ACQ")" "$((N - N / 10))" \
	"  child_lock: once in each child that did not exec"

# 13 processes alive at once (the parent and 12 children) for 4 slots.
spool_run locks -q --max-procs 4 -- "$PROGS/forkmany" wide 12
is_rc 4 "forkmany wide 12 with --max-procs 4 exits 4 (the trace is incomplete)"
is "$OUT" "children=12" "  the program ran to the end"
like "$ERR" "9 processes found no process slot.*--max-procs" \
	"  the run says how many processes had no slot, and the option"
is "$(trace_summary spool.trace lost_no_proc)" 9 "  the run summary counts them"
report_json spool.trace
is "$(lock_stat report.json '*' "$F_ACQ")" 12 \
	"  their lock events are recorded all the same"
"$SPOOL" info spool.trace >info.out 2>info.err
is "$?" 4 "spool info exits 4 on that trace"
like "$(cat info.out)" "9 processes found no process slot" "  and says the same"
"$SPOOL" report --locks spool.trace >rep.out 2>rep.err
like "$(cat rep.err)" "incomplete: 9 processes found no process slot" \
	"spool report says the same"

# The shared memory holds 32 MiB of (sparse) text room per process slot: its
# size counts against ulimit -f, which spool meets with an error naming it,
# never by dying of SIGXFSZ; the default slots fit in 4 GB.
(ulimit -f 4000000; spool_run locks -q --max-procs 1024 -- "$PROGS/forkmany" seq 1
 echo "$RC" >rc.out; echo "$ERR" >err.out)
is "$(cat rc.out)" 1 "--max-procs 1024 under ulimit -f 4000000: an error, not SIGXFSZ"
like "$(cat err.out)" "ulimit -f" "  naming the limit"
(ulimit -f 4000000; spool_run locks -q -- "$PROGS/forkmany" seq 1; echo "$RC" >rc.out)
is "$(cat rc.out)" 0 "the default slots under ulimit -f 4000000: runs"

done_testing
