#!/bin/bash
# SPDX-License-Identifier: MIT
# 65-python-attach.t - `spool probe -p` attached to a running python3 (a
# loop that updates a dict and sleeps), for half a second, then detached:
# the program runs on and prints what it prints alone. A second `spool
# probe -p` on the same process is refused with the reason and exit 1
# (issue 12: it placed 0 probes, gave a wrong reason, and exited 0).
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 7

cat >loop.py <<'PY'
import sys, time
d = {}
print("ready", flush=True)
for i in range(200):
    d[i % 7] = d.get(i % 7, 0) + i
    time.sleep(0.01)
print("done", sum(d.values()))
PY
"$REAL_PY" loop.py >native.out
"$REAL_PY" loop.py >prog.out &
pid=$!
wait_ready prog.out
spool_run probe -p "$pid" -d 500ms -o a1.trace -e 'func:PyDict_*'
is_rc 0 "spool probe -p on the running python3 exits 0"
planned=$(sed -n 's/^spool: \([0-9]*\) probes (.*/\1/p' run.err)
placed=$(sed -n 's/^spool: attached to pid [0-9]*: \([0-9]*\) probes placed.*/\1/p' run.err)
is "${placed:-none}" "${planned:-?}" "every probe was placed ($planned)"
like "$ERR" 'PyDict_SetItem +[1-9]' "it counted the dict updates"
spool_run probe -p "$pid" -d 500ms -o a2.trace -e 'func:PyDict_*'
is_rc 1 "a second spool probe -p on it exits 1"
like "$ERR" 'already has spool.s agent' "and says why"
wait "$pid"
is "$?" 0 "python3 exits 0"
ok "it printed what it prints alone" cmp -s prog.out native.out
done_testing
