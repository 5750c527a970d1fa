#!/bin/bash
# SPDX-License-Identifier: MIT
# 61-python-threads-replay.t - Debian's python3 creating 400 short threads
# (10 alive at a time, a threading.Lock between them) recorded in serial
# mode and replayed three times: every replay exits 0 with the recorded
# output (issue 12: a program creating 256 threads over its life was
# killed by spool record; issue 13: real interpreters replay). First with the traces outside the script's
# directory, then as a user does it: `spool record` and `spool replay` in
# the script's directory, with their default trace names: python3 lists
# its script's directory when it imports, and the replays used to diverge
# because their own trace (spool.replay.trace) appeared there. Now the
# listing is an input of the recording (src/agent/agent_rr_dir.c) and the
# replay's trace goes into the recording (spool.trace/replays/N), so the
# directory is as it was and the program is told what it saw; the test
# also checks the replays left nothing beside the script. Sync mode too,
# in the script's directory: CPython's GIL hands over through atomics
# besides its mutex, which sync mode does not order, and 2 of 8 sync
# recordings used to diverge; with the directory listings recorded, 36
# replays of 12 sync recordings were identical (doc/record.md).
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 7

mkdir app out
cat >app/thr.py <<'PY'
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
cp -r app app2
cd app || exit 1
"$REAL_PY" thr.py >../native.out
wall "$REAL_PY" thr.py >/dev/null
native_s=$WALL
wall spool_run record -q -o ../out/serial.trace -- "$REAL_PY" thr.py
diag "record ${WALL} s, native ${native_s} s"
ok "record exits 0 with the native output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out ../native.out" || show_run
cp run.out ../out/serial.out
replays_same 3 0 ../out/serial.out -q -o ../out/rep.trace ../out/serial.trace
is "$SAME" 3 "3 replays of 3 exit 0 with the recorded output"

wall spool_run record -q --mode sync -o ../out/sync.trace -- "$REAL_PY" thr.py
diag "record sync ${WALL} s"
ok "sync: record exits 0 with the native output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out ../native.out" || show_run
cp run.out ../out/sync.out
replays_same 3 0 ../out/sync.out -q ../out/sync.trace
is "$SAME" 3 "sync: 3 replays of 3 exit 0 with the recorded output"

# As a user does it: everything in the script's directory, default names.
cd ../app2 || exit 1
spool_run record -q -- "$REAL_PY" thr.py
is_rc 0 "record in the script's directory (spool.trace there) exits 0"
cp run.out ../out/user.out
before=$(ls -A | grep -v '^run\.')
replays_same 3 0 ../out/user.out -q --stuck-ms 2000
is "$SAME" 3 "3 replays of 3 there exit 0 with the recorded output"
is "$(ls -A | grep -v '^run\.')" "$before" "... and leave nothing beside the script (their traces: spool.trace/replays/)"
cd "$T_DIR" || exit 1
done_testing
