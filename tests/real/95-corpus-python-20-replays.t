#!/bin/bash
# SPDX-License-Identifier: MIT
# 95-corpus-python-20-replays.t - verdicts that do not vary: one serial
# recording of Debian's python3 with 4 threads (a Lock, a Condition, a
# result file) replayed 20 times: every replay gives the same verdict,
# exit status, stdout, stderr and files (rr_corpus --replays 20).
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 2

mkdir app
cat >app/cv.py <<'PY'
import threading, time, os
cv = threading.Condition()
box = []
def producer(k):
    for i in range(50):
        with cv:
            box.append((k, i, time.monotonic() > 0))
            cv.notify()
got = []
def consumer():
    while len(got) < 150:
        with cv:
            cv.wait_for(lambda: box, timeout=5)
            got.extend(box)
            box.clear()
ts = [threading.Thread(target=producer, args=(k,)) for k in range(3)] + [threading.Thread(target=consumer)]
for t in ts: t.start()
for t in ts: t.join()
open("order.txt", "w").write(" ".join("%d.%d" % g[:2] for g in got) + "\n")
print("got", len(got), "pid", os.getpid() > 0)
PY
rr_corpus python3-cv serial --dir app --replays 20 -- "$REAL_PY" cv.py
done_testing
