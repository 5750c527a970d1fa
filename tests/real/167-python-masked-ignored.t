#!/bin/bash
# SPDX-License-Identifier: MIT
# 167-python-masked-ignored.t - Debian's python3 (4 threads sharing a lock)
# started the way services and scripts start programs: with every signal
# blocked by its parent, under spool record and its replay (it was killed
# by SIGSYS, status 159: tests/integ/381); and with SIGHUP ignored (nohup)
# under spool locks, sending itself SIGHUP (it was killed by it:
# tests/integ/382). Each time the output and status are python's own.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 8

cat >thr.py <<'PY'
import os, signal, threading
n = 0
lock = threading.Lock()
def work():
    global n
    for _ in range(20000):
        with lock:
            n += 1
ts = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
print("blocked:", signal.SIGSYS in signal.pthread_sigmask(signal.SIG_BLOCK, []))
print("hup ignored:", signal.getsignal(signal.SIGHUP) == signal.SIG_IGN)
if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    os.kill(os.getpid(), signal.SIGHUP)
print("total", n)
PY
# blocked CMD...: CMD with every signal blocked
blocked() {
	perl -MPOSIX -e '
		my $s = POSIX::SigSet->new(); $s->fillset();
		sigprocmask(SIG_BLOCK, $s) or die "sigprocmask: $!";
		exec @ARGV or die "exec: $!";' -- "$@"
}
# ignoring CMD...: CMD with SIGHUP ignored
ignoring() { sh -c 'trap "" HUP; exec "$@"' sh "$@"; }

blocked "$REAL_PY" thr.py >native.out 2>&1
is "$(tr '\n' ' ' <native.out)" "blocked: True hup ignored: False total 80000 " "python3 alone, every signal blocked"

blocked timeout -k 10 120 "$SPOOL" record -q -o rec.trace -- "$REAL_PY" thr.py >run.out 2>run.err </dev/null
RC=$?
is "$RC" 0 "spool record, every signal blocked: python3 exits 0 (not killed by SIGSYS)" || diag "$(cat run.err)"
ok "  its output is its own" cmp -s run.out native.out
blocked timeout -k 10 120 "$SPOOL" replay -q -o rep.trace rec.trace >rep.out 2>rep.err </dev/null
RC=$?
is "$RC" 0 "spool replay, every signal blocked: exits 0" || diag "$(cat rep.err)"
ok "  with the recorded output" cmp -s rep.out native.out

ignoring "$REAL_PY" thr.py >native2.out 2>&1
is "$(tr '\n' ' ' <native2.out)" "blocked: False hup ignored: True total 80000 " \
	"python3 alone, SIGHUP ignored: it survives the SIGHUP it sends itself"
timeout -k 10 120 sh -c 'trap "" HUP; exec "$@"' sh "$SPOOL" locks -q -o l.trace -- "$REAL_PY" thr.py \
	>run2.out 2>run2.err </dev/null
RC=$?
is "$RC" 0 "spool locks, SIGHUP ignored (nohup): python3 exits 0 (not killed by SIGHUP)" || diag "$(cat run2.err)"
ok "  its output is its own" cmp -s run2.out native2.out
done_testing
