#!/bin/bash
# SPDX-License-Identifier: MIT
# 140-python-hashlib-gdb.t - Debian's python3 (`import hashlib` loads
# libcrypto, whose OPENSSL_cpuid_setup runs cpuid: trapped and recorded,
# doc/record.md "The CPU's own inputs"; three threads) replayed under gdb,
# with a breakpoint on PyThread_start_new_thread and `continue` to the end: under
# `spool replay --gdb` (gdb the tracer) and under gdb's
# `target remote | spool replay --gdbserver -` (spool the tracer). The
# program's output must be the recording's, and the replay must not diverge.
# Before, both diverged at libcrypto's cpuid during dlopen ("a cpuid of
# another leaf or subleaf than recorded", recorded: nothing), while a plain
# replay of the same recording was identical: gdb started the program with
# an environment the recording's stack padding had not been applied to
# (no SPOOL_PAD=, a short SPOOL_SHM_PATH, under --gdbserver the wrapper's
# SPOOL_GDB_DONE), so the stack sat 0x60 bytes away from the recorded one
# and python took another path (spool warned the layout differed).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || {
	echo "1..0 # SKIP no $PY (Debian's python3)"
	exit 0
}
need_gdb

plan 12

cat >h.py <<'EOF'
import hashlib, threading
def work(i):
    print(i, hashlib.sha256(str(i).encode()).hexdigest()[:16], flush=True)
ts = [threading.Thread(target=work, args=(i,)) for i in range(3)]
for t in ts:
    t.start()
    t.join()
print("done", hashlib.md5(b"spool").hexdigest())
EOF

spool_run record -q -o rec -- "$PY" h.py
is "$RC" 0 "python3 import hashlib with threads recorded"
cp run.out rec.out
like "$(cat rec.out)" "^0 [0-9a-f]{16}
1 [0-9a-f]{16}
2 [0-9a-f]{16}
done [0-9a-f]{32}\$" "  it prints its lines"
like "$(cat rec/.spool/record 2>/dev/null; "$SPOOL" info rec 2>&1)" "cpuid: recorded" \
	"  its cpuid instructions are recorded (CPUID faulting)"

# prog FILE: the program's own lines in gdb's output
prog() { grep -aE '^([0-9] [0-9a-f]{16}|done [0-9a-f]{32})$' "$1"; }
# hits FILE: the breakpoint's stops
hits() { grep -ac '^Thread .* hit Breakpoint 1, \|^Breakpoint 1, ' "$1"; }

BP=(-ex 'set breakpoint pending on' -ex 'break PyThread_start_new_thread')
CONT=(-ex continue -ex continue -ex continue -ex continue)

# --gdb: gdb runs the program
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay --gdb --gdb-args \
	"-batch -nx -ex 'set breakpoint pending on' -ex 'break PyThread_start_new_thread' -ex run \
	-ex continue -ex continue -ex continue -ex continue" rec >gdb.out 2>&1
check_sanitizer gdb.out "spool replay --gdb"
unlike "$(cat gdb.out)" "diverged|layout is not the recording" \
	"--gdb: the replay does not diverge, its stack is the recorded one" ||
	diag "$(grep -av 'New Thread\|exited\]' gdb.out | tail -n 12)"
is "$(prog gdb.out)" "$(cat rec.out)" "--gdb: the program's output is the recording's"
is "$(hits gdb.out)" 3 "--gdb: the breakpoint on PyThread_start_new_thread stops 3 times"
like "$(cat gdb.out)" "exited normally" "--gdb: continue runs to the end"

# --gdbserver: spool runs the program, gdb talks to it
timeout -k 10 "$T_TIMEOUT" gdb -q -batch -nx \
	-ex "target remote | $SPOOL replay --gdbserver - rec" "${BP[@]}" "${CONT[@]}" \
	>srv.out 2>&1
check_sanitizer srv.out "spool replay --gdbserver"
# The gdbserver's program does not get the recorded stack yet (replay.c:
# padding --gdb-wrapper's environment hung its replays from a snapshot
# under ASan, tests/integ/261): a TODO, not a pass.
WHY="--gdbserver's program not padded to the recorded stack yet"
todo_ok "$WHY" "--gdbserver: the replay does not diverge, its stack is the recorded one" \
	bash -c "! grep -aqE 'diverged|layout is not the recording' srv.out"
todo_ok "$WHY" "--gdbserver: the program's output is the recording's" \
	test "$(prog srv.out)" = "$(cat rec.out)"
todo_ok "$WHY" "--gdbserver: the breakpoint on PyThread_start_new_thread stops 3 times" \
	test "$(hits srv.out)" = 3
todo_ok "$WHY" "--gdbserver: continue runs to the end" grep -q "exited normally" srv.out

# and without gdb, as before
spool_run replay rec
is "$(cat run.out)" "$(cat rec.out)" "a plain replay prints the recording's lines"

done_testing
