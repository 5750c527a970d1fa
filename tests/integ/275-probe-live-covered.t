#!/bin/bash
# SPDX-License-Identifier: MIT
# 275-probe-live-covered.t - spool probe -p PID --commands: an `add` whose
# points probes already placed cover names the conflict exactly. With
# func:live_work placed at the attach: `add args:live_work` (its entry
# reader would run in probe 1's trampoline) says which probe's out-of-line
# code holds the point, by which spec, and the command that gives both
# (attach again with both -e), and still places its reader of the return
# value (a warning, not an error); `add func:live_work` says the function's
# entry and exits are probe 1's already. Before, each said only "placed no probe (probes
# already placed cover its points, or spool said why above)". Nothing
# changes in the program: its output is its own, its code byte for byte
# what it was once spool detached.
. "$(dirname "$0")/lib.sh"

live_prog
plan 7

live_start "$PROG"

live_checks <<'PY'
before = code_snapshot(pid)
s = Spool(spool, pid, ["-e", "func:live_work", "-o", "t.trace"])
r = s.cmd("add func:live_work")
check(r[-1].startswith("error: 'func:live_work' placed no probe: the entry and exits of 1 "
                       "function it names are probed already (the last: live_work, probe 1")
      and "by 'func:live_work'" in r[-1],
      "add func: of a function probed already: the error says by which probe", r)
r = s.cmd("add args:live_work")
w = [x for x in r if x.startswith("warning: 'args:live_work': 1 of its points")]
check(r[-1].startswith("ok added 1 probes") and w
      and "in the trampoline of probe 1, entry live_work by 'func:live_work'" in w[0],
      "add args:: its return value placed, its entry named as probe 1's (a warning)", r)
l = parse_list(s.cmd("list"))
check(sorted(l) == [1, 2, 3] and l[3]["op"] == "var",
      "list: probes 1, 2 and the return value's reader 3; nothing else placed", l)
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0 after the detach", rc)
diff = same_code(before, pid)
check(not diff, "after the detach every code byte is what it was before the attach", diff)
PY

live_stop
