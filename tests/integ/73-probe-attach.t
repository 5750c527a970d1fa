#!/bin/bash
# SPDX-License-Identifier: MIT
# 73-probe-attach.t - spool probe -p PID: attach to a running program, probe
# it for a while, detach. The calls recorded fall within what the program
# itself counted over the window; once spool is gone every original byte is
# back in the program's memory, and it runs on to a normal exit with correct
# results. A PID that does not exist, one that cannot be traced and a
# target that exits while the probes are being inserted are reported.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach"
if [ ! -x "$PROG" ] || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP $PROG is not built, or no python3"
	exit 0
fi
plan 13

mono() { python3 -c 'import time; print(int(time.monotonic() * 1000))'; }
# wait_line FILE: until the program has printed its first line
wait_line() {
	local i
	for i in $(seq 1 100); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# --- attach, probe for 1 s, detach ------------------------------------------
rm -f stop.now
"$PROG" 60 stop.now >prog.out &
PID=$!
wait_line prog.out
t0="$(mono)"
spool_run probe -q -p "$PID" -e 'func:attach_work' --duration 1s
t1="$(mono)"
is_rc 0 "spool probe -p attaches, probes for the duration and detaches"

# the program's text after the detach, against the file
restored="$(python3 - "$PID" "$PROG" <<'PY'
import struct, subprocess, sys
pid, exe = int(sys.argv[1]), sys.argv[2]
sym = [l.split() for l in subprocess.run(["nm", "-S", exe], capture_output=True,
       text=True).stdout.splitlines()]
addr, size = [(int(s[0], 16), int(s[1], 16)) for s in sym if len(s) == 4 and s[3] == "attach_work"][0]
data = open(exe, "rb").read()
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
fileoff = None
for i in range(phnum):
    t, fl, off, va, pa, fsz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
    if t == 1 and va <= addr < va + fsz:
        fileoff = addr - va + off
base = None
for l in open("/proc/%d/maps" % pid):
    f = l.split()
    if len(f) >= 6 and f[5] == exe and int(f[2], 16) == 0:
        base = int(f[0].split("-")[0], 16)
        break
mem = open("/proc/%d/mem" % pid, "rb")
mem.seek(base + addr)
print("same" if mem.read(size) == data[fileoff:fileoff + size] else "differs")
PY
)"
is "$restored" "same" "after the detach, the probed function's bytes in memory equal the file's"

touch stop.now
wait "$PID"
prc=$?
is "$prc" 0 "the program runs on and exits normally"
like "$(tail -n 1 prog.out)" '^done calls [0-9]+ check ok$' "... with correct results from the probed function"

spool_run report --functions --json spool.trace
got="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(sum(f["calls"] for f in d["functions"] if f["name"] == "attach_work"))
' "$OUT")"
# calls the program made between just before spool started and just after it
# ended, by its own counter (printed every 20 ms)
window="$(awk -v t0="$t0" -v t1="$t1" '
$1 == "t" && $2 <= t0 { a = $4 }
$1 == "t" && $2 >= t1 && b == "" { b = $4 }
END { if (b == "") b = a; print b - a }' prog.out)"
num_cmp "$got" -gt 0 "calls were recorded while attached ($got)"
num_cmp "$got" -le "$window" "... no more than the program made over the window ($window)"
num_cmp "$((got * 4))" -ge "$window" "... and at least a quarter of them (1 s probed in a window of $((t1 - t0)) ms)"

# --- bad targets --------------------------------------------------------------
true &
gone=$!
wait "$gone"
spool_run probe -p "$gone" -e 'func:attach_work' --duration 1s
num_cmp "$RC" -ne 0 "a PID that does not exist fails"
like "$ERR" "no such process" "... and says so"

# a process already traced (by python, PTRACE_TRACEME) cannot be traced again
python3 - "$PROG" >traced.pid <<'PY' &
import ctypes, os, sys, time
pid = os.fork()
if pid == 0:
    ctypes.CDLL(None).ptrace(0, 0, 0, 0)  # PTRACE_TRACEME
    os.execv(sys.argv[1], [sys.argv[1], "3"])
print(pid, flush=True)
time.sleep(4)
os.kill(pid, 9)
PY
PYPID=$!
wait_line traced.pid
spool_run probe -p "$(cat traced.pid)" -e 'func:attach_work' --duration 1s
num_cmp "$RC" -ne 0 "a process that cannot be traced fails"
like "$ERR" "cannot attach to pid .*not allowed to trace" "... and says why"
kill "$PYPID" 2>/dev/null
wait "$PYPID" 2>/dev/null

# --- the target exits while the probes are being inserted ---------------------
# (SPOOL_TEST_ATTACH_KILL: spool kills it itself at that point: before the
# agent is loaded, or once the trampolines are placed)
for at in stopped prepared; do
	"$PROG" 4 >prog2.out &
	PID=$!
	wait_line prog2.out
	SPOOL_TEST_ATTACH_KILL=$at spool_run probe -p "$PID" -e 'func:attach_work' --duration 1s
	wait "$PID" 2>/dev/null
	if [ "$RC" != 0 ] && [ "$RC" != 124 ] && grep -q "exited while the probes were being inserted" run.err; then
		pass "a target that exits while probes are inserted ($at): spool fails and says so"
	else
		fail "a target that exits while probes are inserted ($at): spool fails and says so"
		show_run
	fi
done

done_testing
