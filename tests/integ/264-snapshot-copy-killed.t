#!/bin/bash
# SPDX-License-Identifier: MIT
# 264-snapshot-copy-killed.t - nothing of spool outlives the program: the
# copies of a recording's snapshots that run on (SPOOL_SNAP_RUN=1, the test
# mode of the snapshot primitive) end with the program. At a normal exit the
# agent's exit path ends them (tests/integ/146); a program killed with
# SIGKILL runs no exit path, and its copies ran on for good, reparented to
# init. Now each copy watches the program (a pidfd, from a thread of its
# own) and is killed when it ends.
# tests/progs/rr_snap WORKERS ITERS 0 STOPFILE: after its joins the program
# (and every copy that got there) waits for STOPFILE.
. "$(dirname "$0")/lib.sh"

plan 4

P="$PROGS/rr_snap"
STOP="$PWD/stop.now" # in this test's directory: names this test's processes

# The processes still running this test's program (the recorded one and its
# copies), by the STOPFILE argument in their command line. A copy whose
# first thread (the one that took the snapshot, maybe a worker) has ended
# is a zombie leader with live threads: its command line is read from any
# of its threads.
ours() {
	local p t n=0
	for p in $(pgrep -x rr_snap 2>/dev/null); do
		for t in /proc/"$p"/task/*; do
			if tr '\0' ' ' <"$t/cmdline" 2>/dev/null | grep -qF "rr_snap 2 600 0 $STOP"; then
				n=$((n + 1))
				break
			fi
		done
	done
	echo "$n"
}
ourpids() {
	local p t
	for p in $(pgrep -x rr_snap 2>/dev/null); do
		for t in /proc/"$p"/task/*; do
			if tr '\0' ' ' <"$t/cmdline" 2>/dev/null | grep -qF "rr_snap 2 600 0 $STOP"; then
				echo "$p"
				break
			fi
		done
	done
}

SPOOL_SNAP_RUN=1 timeout -k 5 120 "$SPOOL" record --chaos --snap-period 20 -o k.trace -- \
	"$P" 2 600 0 "$STOP" >run.out 2>run.err &
spid=$!
# copies print with their own pid: wait for two of them besides the program
for i in $(seq 1 300); do
	[ "$(cut -d' ' -f1 run.out 2>/dev/null | sort -u | wc -l)" -ge 3 ] && break
	sleep 0.1
done
NPIDS=$(cut -d' ' -f1 run.out | sort -u | wc -l)
WAITED=$((i * 100))
num_cmp "$NPIDS" -ge 3 "snapshot copies run on beside the program ($NPIDS processes print)" ||
	diag "after $WAITED ms: lines per process: $(cut -d' ' -f1 run.out | sort | uniq -c | paste -sd' ')" \
		"$(ps -L -o pid,ppid,lwp,stat,time,wchan:24,args -p "$(ourpids | paste -sd,)" 2>/dev/null)" \
		"$(cat run.err)"
num_cmp "$(ours)" -ge 2 "  and are alive before the kill"
# the recorded process: spool's child (spool is timeout's)
sp=$(pgrep -P "$spid" -x spool | head -1)
prog=
[ -n "$sp" ] && prog=$(pgrep -P "$sp" -x rr_snap | head -1)
if [ -n "$prog" ]; then kill -KILL "$prog"; else diag "no recorded process found"; fi
wait "$spid"
RC=$?
is_rc 137 "the program killed with SIGKILL: spool record exits with its 137"
left=0
for i in $(seq 1 50); do
	left=$(ours)
	[ "$left" = 0 ] && break
	sleep 0.1
done
is "$left" 0 "no copy of the program outlives it" ||
	diag "$(ps -o pid,ppid,stat,nlwp,args -p "$(ourpids | paste -sd,)" 2>/dev/null)"
# (a copy left over by a failure ends here: the file it waits for; and if
# it cannot see it any more, it is killed)
touch "$STOP"
sleep 0.3
for p in $(ourpids); do kill -KILL "$p" 2>/dev/null; done
done_testing
