#!/bin/bash
# SPDX-License-Identifier: MIT
# 163-python-gil-cpu.t - Debian's python3 with 4 CPU-bound threads and no
# lock of their own: what each computes is fixed, but the order in which
# they append to one list (and so the printed trace of hand-offs) is
# decided by CPython's GIL, which a waiting thread asks for after its 5 ms
# timed wait on the GIL's condition variable runs out (it sets an atomic
# the holder polls between bytecodes; sys.setswitchinterval makes it
# 1 ms here to get many hand-offs). Serial mode replays it exactly: 3
# replays print the recorded order. Sync mode cannot: it orders the GIL's
# mutex and condition variable and replays the timed wait's result, but
# the holder drops the GIL at whichever bytecode it sees the atomic set,
# which depends on how fast it ran: each sync replay is identical or stops
# at a reported divergence (doc/record.md).
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 4

mkdir app
cat >app/gil.py <<'PY'
import sys, threading
sys.setswitchinterval(0.001)
order = []
res = [0] * 4
def work(i):
    s = 0
    for k in range(60000):
        s = (s * 31 + k + i) % 1000003
        if k % 2000 == 0:
            order.append(i)
    res[i] = s
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
runs = sum(1 for a, b in zip(order, order[1:]) if a != b)
print(res, len(order))
print("hand-offs seen", runs, "".join(map(str, order)))
PY
rr_corpus python3-gil serial --dir app -- "$REAL_PY" gil.py
rr_corpus python3-gil sync --dir app \
	--may-diverge "CPython's GIL hands over through an atomic the holder polls" -- "$REAL_PY" gil.py
done_testing
