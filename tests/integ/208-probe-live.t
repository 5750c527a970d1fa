#!/bin/bash
# SPDX-License-Identifier: MIT
# 208-probe-live.t - spool probe -p PID --commands: while the program runs,
# list the probes with their hits, disable and enable one (hits counted
# only while enabled), add a spec (an int3 probe among them), delete a
# probe, detach. The program's output is what it prints unprobed, and after
# the detach every byte of its code (the executable's and every library's
# executable mappings) is what it was before spool attached.
. "$(dirname "$0")/lib.sh"

live_prog
plan 24

live_start "$PROG"

live_checks <<'PY'
before = code_snapshot(pid)
s = Spool(spool, pid, ["--exits", "patch", "-e", "func:live_work", "-o", "t.trace"])
l = parse_list(s.cmd("list"))
check(sorted(l) == [1, 2] and l[1]["op"] == "entry" and l[2]["op"] == "exit"
      and l[1]["function"] == "live_work" and l[1]["state"] == "enabled",
      "list: the entry and exit probes of live_work, enabled", l)
ok, a, b = grows(s, 1)
check(ok, "... their hits grow while the program runs", a, b)

r = s.cmd("disable 1")
check(r[-1] == "ok disabled 1", "disable 1", r)
a = hits(s, 1)
e1 = hits(s, 2)
time.sleep(0.5)
b = hits(s, 1)
e2 = hits(s, 2)
check(a is not None and a == b, "a disabled probe records nothing", a, b)
check(e2 > e1, "... while the other probe of the function still counts", e1, e2)
check(parse_list(s.cmd("list"))[1]["state"] == "disabled", "list says it is disabled")
check(s.cmd("enable 1")[-1] == "ok enabled 1", "enable 1")
ok, a, b = grows(s, 1)
check(ok, "... it counts again", a, b)

r = s.cmd("add func:live_callfirst")
l = parse_list(r)
check(r[-1].startswith("ok added 2 probes (ids 3-4)") and l.get(3, {}).get("function") == "live_callfirst",
      "add func:live_callfirst: probes 3 and 4", r)
check(l.get(3, {}).get("method") == "int3", "... its entry (a call in its first bytes) is an int3 probe", l.get(3))
ok, a, b = grows(s, 3)
check(ok, "... and counts", a, b)
check(s.cmd("disable 3")[-1] == "ok disabled 1", "disable 3 (int3)")
a = hits(s, 3)
time.sleep(0.5)
b = hits(s, 3)
check(a == b, "... the disabled int3 probe records nothing", a, b)
s.cmd("enable 3")
ok, a, b = grows(s, 3)
check(ok, "... enabled, it counts again", a, b)

r = s.cmd("delete 1")
check(r[-1] == "ok deleted 1", "delete 1", r)
a = hits(s, 1)
time.sleep(0.5)
l = parse_list(s.cmd("list"))
check(l[1]["state"] == "deleted" and l[1]["hits"] == a, "... deleted: no more hits", l[1], a)
r = s.cmd("delete 99")
check(r[-1].startswith("error: no probe 99"), "delete of an id that does not exist is an error", r)
r = s.cmd("add func:no_such_function")
check(r[-1].startswith("error:"), "add of a spec that matches nothing is an error", r)
r = s.cmd("delete 3 4")
r2 = s.cmd("add func:live_callfirst")
new = sorted(parse_list(r2))
ok, a, b = grows(s, new[0]) if new else (False, 0, 0)
check(r[-1] == "ok deleted 2" and r2[-1].startswith("ok added") and 3 not in new and ok,
      "a deleted probe's place can be probed again (new ids, and they count)", r, r2, a, b)
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0 after the detach", rc)
diff = same_code(before, pid)
check(not diff, "after the detach every code byte is what it was before the attach", diff)
PY

live_stop
spool_run report --functions t.trace
like "$ERR$OUT" "live_callfirst" "the trace names the probes added while attached"
