#!/bin/bash
# SPDX-License-Identifier: MIT
# 50-python-many-threads.t - Debian's python3 creates 400 short threads,
# 10 alive at a time (threading.Thread, each adds to a total under a
# threading.Lock), under `spool locks`: thread slots are reused (issue 12:
# a program creating 256 threads over its life was killed), the output is
# the native one, nothing is lost, and the trace has every thread.
. "$(dirname "$0")/../lib.sh"
need_progs "$REAL_PY"
plan 6

cat >thr.py <<'PY'
import threading
lock = threading.Lock()
total = 0
def work(i):
    global total
    with lock:
        total += i
for batch in range(40):
    ts = [threading.Thread(target=work, args=(batch * 10 + k,)) for k in range(10)]
    for t in ts: t.start()
    for t in ts: t.join()
print("threads", threading.active_count(), "total", total)
PY
"$REAL_PY" thr.py >native.out
is "$(cat native.out)" "threads 1 total 79800" "natively: 400 threads add up to 79800"
spool_run locks -o l.trace -- "$REAL_PY" thr.py
is_rc 0 "python3 with 400 short threads under spool locks exits 0"
ok "its output is the native run's" cmp -s run.out native.out
is "$(summary_lost)" 0 "no event was lost"
is "$(trace_summary l.trace threads)" 401 "the trace has the 401 threads"
report_json l.trace
num_cmp "$(json report.json "len(d['threads'])")" -ge 401 "the lock report lists them"
done_testing
