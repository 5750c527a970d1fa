#!/bin/bash
# SPDX-License-Identifier: MIT
# 69-attach-mask-later.t - `spool probe -p` attached to a running python3
# that blocks every signal only after spool attached, then allocates
# (PyObject_Malloc: every block an int3 probe). Issue 12: the target is
# never harmed, whatever its signal mask. doc/probe.md says such a thread
# "is killed by its first int3 hit" in attach mode (the agent is loaded
# with dlopen and cannot keep SIGTRAP out of the mask): python3 dies of
# SIGTRAP (133), and spool probe exits 0 saying only that the process
# exited. This test asks for the program to run on, or at the very least
# for spool to say the program was killed by a probe.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 3

cat >late.py <<'PY'
import signal, sys, time
print("ready", flush=True)
sys.stdin.readline()
signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
n = 0
for _ in range(50):
    d = {i: i for i in range(200)}
    n += len(d)
print("n", n, flush=True)
PY
mkfifo go
"$REAL_PY" late.py <go >prog.out &
pid=$!
exec 7>go
wait_ready prog.out
timeout -k 5 60 "$SPOOL" probe -p "$pid" -d 3s -o a.trace -e 'block:PyObject_Malloc' \
	>probe.out 2>probe.err &
spid=$!
wait_for 'probes placed' probe.err 20
echo go >&7
exec 7>&-
wait "$pid"
prc=$?
wait "$spid"
ERR=$(cat probe.err)
ok "python3, probed since before it blocked every signal, is not killed (status $prc)" \
	test "$prc" = 0
like "$(cat prog.out)" '^n 10000$' "it finished its work"
if [ "$prc" = 0 ]; then
	pass "spool had nothing to say about a killed program"
else
	like "$ERR" 'SIGTRAP|killed|signal 5' "spool says the program died of its probe's trap"
fi
done_testing
