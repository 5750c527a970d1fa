#!/bin/bash
# SPDX-License-Identifier: MIT
# 225-killed-spool-leaves.t - what is left when spool is killed with SIGKILL
# in the middle of a run (doc/record.md, "spool itself killed in the
# middle"; doc/locks.md, doc/probe.md): the traced program is not harmed,
# it runs on to its own end with its output whole (record, record with
# snapshots, locks, probe), or, under replay, ends itself as spool would
# have stopped it; nothing else spool started is left (snapshot copies, a
# --check-cmd command), and once the program has ended nothing at all. The
# programs run under names of this test's, so their processes are found by
# name; the time from the kill to the program's end is printed (a figure).
. "$(dirname "$0")/lib.sh"

plan 16

# left: the processes of this test's directory (spool, the programs, the
# helpers), pids one a line
left() { pgrep -f "$T_DIR/" | grep -vx "$$"; }
# running PID: PID exists and is not a zombie (its new parent reaps it when
# it gets to it)
running() {
	[ -d "/proc/$1" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]
}
# run_kill NAME PROG-PATTERN SPOOL-ARGS...: start spool, wait for the
# program, let it run a moment, kill spool with SIGKILL; SPID, PPID_ (the
# program's pid) set, T0 the time of the kill, MID=yes when the program
# still ran just before it
run_kill() {
	local name=$1 pat=$2 i
	shift 2
	"$SPOOL" "$@" >"out.$name" 2>"err.$name" </dev/null &
	SPID=$!
	PPID_=""
	for ((i = 0; i < 600; i++)); do
		PPID_=$(pgrep -f "^$pat" | head -1)
		[ -n "$PPID_" ] && break
		sleep 0.05
	done
	sleep 0.5
	# whether the program runs is seen before the kill: a replayed program
	# ends itself within a millisecond of spool's death, sooner than a
	# look after the kill could see it run
	MID=no
	running "${PPID_:-0}" && MID=yes
	kill -9 "$SPID"
	T0=$(date +%s%N)
	wait "$SPID" 2>/dev/null
}
# wait_end PID [SECONDS]: until PID has ended (120 s at most); END_MS
wait_end() {
	local i
	for ((i = 0; i < ${2:-120} * 20; i++)); do
		running "$1" || break
		sleep 0.05
	done
	END_MS=$((($(date +%s%N) - T0) / 1000000))
	! running "$1"
}
# nothing_left DESC: nothing of this test's directory runs (10 s at most)
nothing_left() {
	local l t0
	t0=$(date +%s)
	while true; do
		l=$(left)
		[ -z "$l" ] || [ $(($(date +%s) - t0)) -ge 10 ] && break
		sleep 0.05
	done
	if [ -z "$l" ]; then
		pass "$1"
	else
		fail "$1"
		diag "left:" "$(echo "$l" | xargs -r ps -o pid,ppid,stat,etime,args -p)"
		echo "$l" | xargs -r kill -9 2>/dev/null
	fi
}

RC_PROG="$T_DIR/orph225-counter"
# rounds of each of its 2 threads: about 2.5 s under spool record on an
# idle machine, so that the program still runs when spool is killed
RC_ROUNDS=300000000
cp "$PROGS/rr_race_counter-finst" "$RC_PROG"
SNAP_PROG="$T_DIR/orph225-snap"
cp "$PROGS/rr_snap" "$SNAP_PROG"
LK_PROG="$T_DIR/orph225-lockcount"
cp "$PROGS/lockcount" "$LK_PROG"

# spool record: the program runs on natively to its end
run_kill rec "$RC_PROG" record -q -o "$T_DIR/rec.trace" -- "$RC_PROG" 2 $RC_ROUNDS
if [ "$MID" = yes ] && wait_end "$PPID_"; then
	pass "record killed: the program ends by itself ($END_MS ms after the kill)"
else
	fail "record killed: the program ends by itself (running at the kill: $MID)"
fi
like "$(cat out.rec)" '^total [0-9]+ of '$((2 * RC_ROUNDS))'$' "  its output is whole"
like "$(ls -d "$T_DIR"/rec.trace.writing.* 2>/dev/null)" "rec.trace.writing.$SPID\$" \
	"  the partial recording is left as rec.trace.writing.PID (spool recover)"
nothing_left "  nothing is left"

# spool record with snapshots: the copies write their images and end
run_kill snap "$SNAP_PROG" record -q --snap-period 200 -o "$T_DIR/snap.trace" -- "$SNAP_PROG" 3 40000
wait_end "$PPID_"
like "$MID $(grep ' done ' out.snap | head -1)" '^yes .*done counter=120000 want=120000' \
	"record --snap-period killed mid-run: the program runs to its end ($END_MS ms after the kill)"
nothing_left "  no snapshot copy is left"

# spool locks: the program runs on, its events are lost
run_kill locks "$LK_PROG" locks -q -o "$T_DIR/locks.trace" -- "$LK_PROG" 2 8000000 0
if [ "$MID" = yes ] && wait_end "$PPID_"; then
	pass "locks killed: the program ends by itself ($END_MS ms after the kill)"
else
	fail "locks killed: the program ends by itself (running at the kill: $MID)"
fi
is "$(cat out.locks)" "total=16000000" "  its output is whole"
nothing_left "  nothing is left"

# spool probe: the program runs on, its probes in place and harmless
run_kill probe "$RC_PROG" probe -q -e func:work -o "$T_DIR/probe.trace" -- "$RC_PROG" 2 30000000
if [ "$MID" = yes ] && wait_end "$PPID_"; then
	pass "probe killed: the program ends by itself ($END_MS ms after the kill)"
else
	fail "probe killed: the program ends by itself (running at the kill: $MID)"
fi
like "$(cat out.probe)" '^total [0-9]+ of 60000000$' "  its output is whole"
nothing_left "  nothing is left"

# spool replay: the program ends itself (a replay is spool's own run)
spool_run record -q -o "$T_DIR/whole.trace" -- "$RC_PROG" 2 $RC_ROUNDS
run_kill replay "$RC_PROG" replay -q "$T_DIR/whole.trace"
if [ "$MID" = yes ] && wait_end "$PPID_" 30; then
	pass "replay killed: the replayed program ends ($END_MS ms after the kill)"
else
	fail "replay killed: the replayed program ends (running at the kill: $MID)"
	diag "program pid ${PPID_:-none}, $END_MS ms after the kill:" \
		"$(ps -o pid,ppid,stat,etime,args -p "${PPID_:-0}" 2>&1)" "$(tail -n 5 err.replay)"
fi
nothing_left "  nothing is left"

# a --check-cmd command still running when spool is killed ends with it
cp "$(command -v sleep)" "$T_DIR/orph225-sleep"
"$SPOOL" record -q --until-fail 3 --check-cmd "exec $T_DIR/orph225-sleep 60" \
	-o "$T_DIR/check.trace" -- "$RC_PROG" 2 1000 >out.check 2>err.check </dev/null &
SPID=$!
for ((i = 0; i < 600; i++)); do
	CPID=$(pgrep -f "^$T_DIR/orph225-sleep 60" | head -1)
	[ -n "$CPID" ] && break
	sleep 0.05
done
ok "record --until-fail --check-cmd: the check runs" test -n "$CPID"
kill -9 "$SPID"
T0=$(date +%s%N)
wait "$SPID" 2>/dev/null
wait_end "${CPID:-0}" 10
nothing_left "  it does not outlive a killed spool (gone $END_MS ms after the kill)"
done_testing
