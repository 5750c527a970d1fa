#!/bin/bash
# SPDX-License-Identifier: MIT
# 409-replay-stop-signals.t - SIGTERM, SIGHUP and SIGINT to `spool replay`
# end a replay whose program hangs: promptly, the replayed processes spool
# made killed, said, and a non-zero exit (128 + the signal). A replayed
# program's signals come from its recording: before, spool passed a
# SIGTERM on to the program, which here handles it (python's handler,
# held by the agent in the replay), and the replay ran on past
# `timeout`'s SIGTERM; a SIGINT at a terminal was ignored by spool. The
# program hangs for real here: python's flock (not recorded: it runs in
# the replay) on a file another process holds. Serial and sync replays,
# and `spool replay --gdbserver` (spool dies of the signal as before, its
# replays killed by the kernel, but says so first).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || {
	echo "1..0 # SKIP no $PY"
	exit 0
}

plan 21

# (a name of this run's own: pgrep below finds this run's programs only)
HANG="hang-$$.py"
cat >"$HANG" <<'EOF2'
import fcntl, signal
signal.signal(signal.SIGTERM, lambda *a: print("TERM handled", flush=True))
f = open("lockfile", "w")
print("locking", flush=True)
fcntl.flock(f, fcntl.LOCK_EX)
print("locked", flush=True)
EOF2
spool_run record -q -o ser.trace -- "$PY" "$HANG"
is "$RC" 0 "the program recorded (serial) with the lock free"
spool_run record -q --mode sync -o syn.trace -- "$PY" "$HANG"
is "$RC" 0 "the program recorded (sync) with the lock free"

# the lock held for the rest of the test, by one process (killed at the
# end; nothing of it holds the test's output): each replay hangs in flock
"$PY" -c 'import fcntl, time
f = open("lockfile", "w")
fcntl.flock(f, fcntl.LOCK_EX)
open("held", "w").write("yes\n")
time.sleep(600)' </dev/null >/dev/null 2>&1 &
HOLDER=$!
trap 'kill $HOLDER 2>/dev/null; _t_cleanup' EXIT

# wait_for FILE TEXT: until FILE holds TEXT (60 s at most)
wait_for() {
	for _ in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
wait_for held yes || diag "the lock is not held"
# left: the replayed programs still running
left() { pgrep -f "$PY $HANG" | grep -vx "$HOLDER" | wc -l; }

# stop_replay TRACE SIG: a replay of TRACE, hung, then sent SIG
stop_replay() {
	local trace=$1 sig=$2 num
	num=$(kill -l "$sig")
	# (SIGINT as a terminal would give it: not ignored as in a script's
	# background job)
	timeout -k 5 "$T_TIMEOUT" "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$SPOOL" replay "$trace" >"$sig.out" 2>"$sig.err" &
	local pid=$!
	wait_for "$sig.out" locking
	sleep 0.3 # (in flock)
	kill -s "$sig" "$pid"
	wait "$pid"
	local rc=$?
	is "$rc" $((128 + num)) "$trace: SIG$sig to spool replay ends it, exit 128+$num" ||
		diag "$(cat "$sig.err")"
	like "$(cat "$sig.err")" "replay stopped by SIG$sig to spool: the replayed program's 1 process was killed" \
		"  it says so"
	unlike "$(cat "$sig.out")" "locked" "  the program did not get past the lock"
	is "$(left)" 0 "  no replayed process is left"
}
stop_replay ser.trace TERM
stop_replay ser.trace HUP
stop_replay ser.trace INT
stop_replay syn.trace TERM

# --gdbserver: spool is gdb's remote target
timeout -k 5 "$T_TIMEOUT" gdb -q -batch -nx \
	-ex "target remote | $SPOOL replay --gdbserver - ser.trace" -ex continue \
	>gdb.out 2>&1 &
GDB=$!
wait_for gdb.out locking
sleep 0.3
# (gdb's own command line names the same words: spool is gdb's child, or
# its shell's when gdb runs the command through a /bin/sh that forks: no
# SHELL in the environment, as under CI's env -i)
GDBPID=$(pgrep -P "$GDB" -x gdb)
SRV=$(pgrep -P "$GDBPID" -x spool)
[ -n "$SRV" ] || SRV=$(for c in $(pgrep -P "$GDBPID"); do pgrep -P "$c" -x spool; done | head -n 1)
kill -TERM "$SRV"
wait "$GDB"
ok "--gdbserver: SIGTERM to spool ends the replay (gdb returns)" test $? != 124
like "$(cat gdb.out)" "replay stopped by SIGTERM to spool: the replayed program is killed" \
	"  it says so" || diag "$(tail -n 8 gdb.out)"
for _ in $(seq 100); do [ "$(left)" = 0 ] && break; sleep 0.1; done
is "$(left)" 0 "  no replayed process is left"

done_testing
