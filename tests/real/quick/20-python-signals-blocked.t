#!/bin/bash
# SPDX-License-Identifier: MIT
# 20-python-signals-blocked.t - Debian's python3 (-O2, stripped: its
# exported functions only) blocks every signal, then two threads walk a
# dict and raise and catch exceptions. Probed with int3 breakpoints (every
# block of PyObject_Malloc is one: it has indirect jumps spool cannot
# read; each of its ~20,000 calls in the loop is a SIGTRAP) the program must
# not be killed by the SIGTRAP it cannot receive (issue 12: exit 133), and
# with func: probes on a 4 KiB ring (the full-ring path from a trampoline
# entered at any stack alignment) it must run as it does alone.
. "$(dirname "$0")/../lib.sh"
need_progs "$REAL_PY"
plan 8

cat >blk.py <<'PY'
import signal, threading
signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
d = {i: i * i for i in range(1000)}
n = 0
def work():
    global n
    for _ in range(10):
        for k, v in d.items():
            n += v & 1
        try:
            raise KeyError(1)
        except LookupError:
            pass
ts = [threading.Thread(target=work) for _ in range(2)]
for t in ts: t.start()
for t in ts: t.join()
print("blocked", len(signal.pthread_sigmask(signal.SIG_BLOCK, [])), "n", n)
PY
"$REAL_PY" blk.py >native.out
like "$(cat native.out)" '^blocked [0-9]{2} n 10000$' "natively the program runs with every signal blocked"

# Which block probes are int3: from --list ("FUNC block int3 +OFF ...").
specs=(-e 'block:PyObject_Malloc' -e 'block:PyErr_*')
"$SPOOL" probe --list "${specs[@]}" "$REAL_PY" >list.txt 2>/dev/null
num_cmp "$(grep -c ' block  *int3 ' list.txt)" -gt 0 "some of those blocks are int3 probes"
spool_run probe -o b.trace "${specs[@]}" -- "$REAL_PY" blk.py
is_rc 0 "python3 with every signal blocked and int3 probes exits 0"
ok "its output is the native run's" cmp -s run.out native.out
"$SPOOL" report --coverage --json b.trace >cov.json 2>/dev/null
hits=$("$REAL_PY" - list.txt cov.json <<'PY'
import json, sys
int3 = set()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 4 and f[1] == "block" and f[2] == "int3":
        int3.add((f[0], int(f[3].lstrip("+"), 16)))
d = json.load(open(sys.argv[2]))
base = {}
for b in d["blocks"]:
    base[b["function"]] = min(base.get(b["function"], b["start"]), b["start"])
print(sum(b["count"] for b in d["blocks"]
          if b["function"] == "PyObject_Malloc"
          and (b["function"], b["start"] - base[b["function"]]) in int3))
PY
)
# (python3's startup, before the mask, makes ~130 of those calls)
num_cmp "$hits" -gt 5000 "the int3 probes were hit with every signal blocked ($hits hits)"

spool_run probe -o f.trace --ring-size 4k -e 'func:PyDict_*' -e 'func:PyErr_*' -e 'func:PyObject_*' \
	-- "$REAL_PY" blk.py
is_rc 0 "python3 with func: probes on 4k rings exits 0"
ok "its output is the native run's" cmp -s run.out native.out
like "$ERR" 'PyErr_GivenExceptionMatches +[0-9]+' "the report counts the calls"
done_testing
