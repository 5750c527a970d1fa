#!/bin/bash
# SPDX-License-Identifier: MIT
# 146-snapshot.t - the snapshot primitive of serial mode (doc/record.md,
# "Snapshots"): spool record --snap-period N takes a raw-clone copy of the
# program every N switches of the run token, when every other thread is
# parked in the agent (waiting for the token, or in a join's wait). With
# SPOOL_SNAP_RUN=1 each copy recreates the threads and runs the program on,
# unrecorded: mutexes, condition variables, stdio and joins must keep
# working there, so every copy finishes with the right totals. The recording
# itself is unchanged: its replay prints what the recorded process printed.
. "$(dirname "$0")/lib.sh"

plan 20

P="$PROGS/rr_snap"

# --- the copies run on ----------------------------------------------------
SPOOL_SNAP_RUN=1 spool_run record --chaos --snap-period 50 -o run.trace -- "$P" 3 2000
is_rc 0 "record --chaos --snap-period 50 with copies that run on: exit 0" || show_run
NSNAP=$(sed -nE 's/^spool: ([0-9]+) snapshots? \(every 50 switches\).*/\1/p' run.err)
num_cmp "${NSNAP:-0}" -ge 3 "the summary counts the snapshots taken (${NSNAP:-none})"
RECPID=$(sed -n 's/^pid=//p' run.trace/.spool/record)
grep "^$RECPID " run.out >rec.out
NDONE=$(grep -c ' done ' run.out)
# (a snapshot due while a joined thread was still leaving may be taken
# after main's last line: that copy has nothing left to print)
num_cmp "$NDONE" -ge "$NSNAP" "the copies end and print their last line: $NDONE of $NSNAP + 1"
NOEND=0
for p in $(cut -d' ' -f1 run.out | sort -u); do
	grep -q "^$p done " run.out || NOEND=$((NOEND + 1))
done
is "$NOEND" 0 "every process that prints prints its last line"
NCOPIES=$(grep ' done ' run.out | cut -d' ' -f1 | sort -u | wc -l)
is "$NCOPIES" "$NDONE" "each last line comes from another process"
BAD=$(grep ' done ' run.out | grep -cv 'counter=6000 want=6000 consumed=500 want=500 sums=equal joined=5$')
is "$BAD" 0 "in every copy the workers, the producer and the consumer finish: totals right, 5 joins"
# Threads of the copies print after their snapshot: the threads recreated
# in a copy ran (the one that took the snapshot is one thread per copy).
# A copy where two threads print: one at least was recreated.
# (main prints the "done" line: the thread, "worker N" or "consumer")
MULTI=$(grep -v "^$RECPID " run.out | sed -E 's/^([0-9]+) (done|consumer|worker [0-9]+).*/\1 \2/' |
	sort -u | cut -d' ' -f1 | uniq -c | awk '$1 >= 2' | wc -l)
num_cmp "$MULTI" -ge 1 "recreated threads print in the copies ($MULTI copies with two threads printing)"
like "$(cat run.trace/.spool/record 2>/dev/null)" 'mode=serial' "the trace is written"

spool_run replay -o run.rep run.trace
is_rc 0 "the recording with snapshots replays"
# (a copy taken while a thread was parked in the write of a line writes
# that line too, with the recorded pid: the lines are compared as sets)
sort -u rec.out >rec.set
sort -u run.out >rep.set
if cmp -s rec.set rep.set; then
	pass "the replay prints what the recorded process printed (the copies' lines aside)"
else
	fail "the replay prints what the recorded process printed (the copies' lines aside)"
	diff rec.set rep.set | head -n 20 | while read -r l; do diag "$l"; done
fi

# --- the default copy ends at once: only the pause --------------------------
SPOOL_SNAP_IMAGE=0 spool_run record --chaos --snap-period 10 -o exit.trace -- "$P" 4 400
is_rc 0 "record --snap-period 10, SPOOL_SNAP_IMAGE=0 (copies end at once): exit 0"
cp run.out exit.out
N=$(sed -nE 's/^spool: ([0-9]+) snapshots? \(every 10 switches\).*/\1/p' run.err)
SW=$(sed -nE 's/.* ([0-9,]+) schedule events \(switches\).*/\1/p' run.err | tr -d ,)
if [ "${SW:-0}" -ge 40 ]; then
	num_cmp "${N:-0}" -ge 1 "snapshots are taken (${N:-none} in $SW switches)"
else
	skip "this chaos run switched $SW times only" 1
fi
is "$(cut -d' ' -f1 exit.out | sort -u | wc -l)" 1 "only the recorded process prints"
spool_run replay -o exit.rep exit.trace
if [ "$RC" = 0 ] && cmp -s exit.out run.out; then
	pass "its replay prints the recording's output"
else
	fail "its replay prints the recording's output"
	show_run
fi

# --- snapshots need serial mode -------------------------------------------
spool_run record --mode sync --snap-period 10 -o sync.trace -- "$P" 2 100
like "$ERR" 'snap-period goes with --mode serial' "--snap-period with --mode sync is refused"
is "$RC" 2 "... a usage error (exit 2)"
spool_run record --mode sync --snap-period 50ms -o sync.trace -- "$P" 2 100
like "$ERR" 'snap-period goes with --mode serial' "--snap-period 50ms with --mode sync too"
spool_run record --mode sync --snap-max 10M -o sync.trace -- "$P" 2 100
like "$ERR" 'snap-max goes with --mode serial \(sync mode takes no snapshots' \
	"--snap-max with --mode sync is refused (it was taken and did nothing)"
is "$RC" 2 "... a usage error (exit 2)"
# a sync recording has none to start from
spool_run record --mode sync -o sync.trace -- "$P" 2 100
spool_run replay --goto 1 sync.trace
like "$ERR" 'is a sync-mode recording, which has no snapshots' "--goto on a sync recording is refused"

done_testing
