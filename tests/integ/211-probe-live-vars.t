#!/bin/bash
# SPDX-License-Identifier: MIT
# 211-probe-live-vars.t - variable probes added while attached
# (`add args:FUNC`): the values recorded are the program's (live_work(x, 7)
# returns 3x + 7: y is always 7, the largest return is 3 * the largest x
# + 7), beside those of an args: probe placed at the attach; a sys: spec
# added beside them (361 checks its counts). The code is as before after
# the detach.
. "$(dirname "$0")/lib.sh"

live_prog
plan 8

live_start "$PROG"
live_checks <<'PY'
before = code_snapshot(pid)
s = Spool(spool, pid, ["-e", "args:live_leaf", "-o", "t.trace"])
r = s.cmd("add args:live_work")
check(r[-1].startswith("ok added"), "add args:live_work", r)
time.sleep(0.5)
r = s.cmd("add sys:cpu")
check(r[-1].startswith("ok added sys:cpu"), "a sys: spec added beside them while attached", r)
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0", rc)
diff = same_code(before, pid)
check(not diff, "the code is as before the attach", diff)
PY
live_stop

spool_run report --vars t.trace
y=$(sed -n 's/^variable y (long) at live_work:entry: [0-9]* values, min \([0-9-]*\), max \([0-9-]*\).*/\1 \2/p' <<<"$OUT$ERR")
is "${y:-none}" "7 7" "the added probe read y = 7 at every call"
xmax=$(sed -n 's/^variable x (long) at live_work:entry: [0-9]* values, min [0-9-]*, max \([0-9-]*\).*/\1/p' <<<"$OUT$ERR")
rmax=$(sed -n 's/^variable return (long) at live_work:exit: [0-9]* values, min [0-9-]*, max \([0-9-]*\).*/\1/p' <<<"$OUT$ERR")
# the largest return is 3x + 7 for an x the probe read (its last calls' exits
# may fall after the detach, a first exit before the add: so not exactly the
# largest x's)
ok "... and the returns it read are 3x + 7 of the x it read (largest $rmax, largest x ${xmax:-none})" \
	test -n "$rmax" -a -n "$xmax" -a $(( (rmax - 7) % 3 )) -eq 0 -a $(( (rmax - 7) / 3 )) -le "${xmax:-0}" \
	-a $(( (rmax - 7) / 3 )) -ge $(( ${xmax:-0} - 1000 ))
