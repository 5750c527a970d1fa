#!/bin/bash
# SPDX-License-Identifier: MIT
# 84-corpus-python-threads.t - the record/replay corpus: Debian's python3
# with a ThreadPoolExecutor of 4 workers (hashing, a Lock-protected dict,
# a Queue, a result file written), recorded in serial and in sync mode and
# replayed 3 times each, run in the script's own directory as a user does.
# CPython hands its GIL over through atomics besides its mutex, which sync
# mode does not order: each sync replay must be identical or stop at a
# reported divergence.
#
# Verdicts that do not vary: one serial recording of python3 with 4 threads
# (a Lock, a Condition, a result file) replayed 20 times: every replay gives
# the same verdict, exit status, stdout, stderr and files.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 6

mkdir app
cat >app/pool.py <<'PY'
import concurrent.futures, hashlib, queue, threading, random, time
lock = threading.Lock()
seen = {}
q = queue.Queue()
def work(i):
    h = hashlib.sha256(str(i).encode())
    for _ in range(200):
        h = hashlib.sha256(h.digest())
    with lock:
        seen[i] = h.hexdigest()[:8]
    q.put((i, threading.get_ident() % 7, random.random() < 2))
    return len(seen)
with concurrent.futures.ThreadPoolExecutor(4) as ex:
    order = list(ex.map(work, range(300)))
items = []
while not q.empty():
    items.append(q.get()[0])
with open("result.txt", "w") as f:
    f.write("".join(seen[i] for i in sorted(seen)) + "\n")
print("done", len(seen), "first finished", items[:5], "order", order[:8], time.time() > 0)
PY
rr_corpus python3-threads serial --dir app -- "$REAL_PY" pool.py
rr_corpus python3-threads sync --dir app \
	--may-diverge "CPython's GIL hands over through atomics" -- "$REAL_PY" pool.py
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
