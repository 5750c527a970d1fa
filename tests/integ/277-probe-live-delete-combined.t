#!/bin/bash
# SPDX-License-Identifier: MIT
# 277-probe-live-delete-combined.t - one probe of a combined pair (probes of
# two kinds at one point: the second runs in the first's code, `shared` in
# list) is deleted on its own while the program runs (spool probe -p
# --commands): the other stays and goes on counting, the deleted one's hits
# stop and it cannot be enabled again; the code comes back byte for byte
# when the last of the pair is deleted, before the detach. Both orders: the
# rider first (args: in func:'s trampoline at live_work's entry) and the
# probe whose code it is first (live_work, then the int3 at live_callfirst's
# ret whose slot runs an args: probe). Before, deleting one was refused.
. "$(dirname "$0")/lib.sh"

live_prog
plan 24

# the python both attaches use
cat >helpers.py <<'PY'
from probe_live import *
def pair(s, fn, at):
    """(host, rider): the args: probe of fn that runs in another probe's code
    ("shared") at fn's entry (at "entry") or at its ret ("exit"), and the
    probe placed there, whose code it is (same offset)."""
    rows = [l.split() for l in s.cmd("list") if l[:1].isdigit()]
    for h in rows:
        if h[5] != fn or h[1] != at or h[2] == "shared":
            continue
        for r in rows:
            if r[5] == fn and r[1] == "var" and r[2] == "shared" and r[4] == h[4]:
                return int(h[0]), int(r[0])
    return None, None

def deleted_alone(s, gone, other, what):
    a = s.cmd("delete %d" % gone)
    check(a[-1] == "ok deleted 1", "%s: delete %d alone" % (what, gone), a)
    st = parse_list(s.cmd("list"))
    check(st.get(gone, {}).get("state") == "deleted" and st.get(other, {}).get("state") == "enabled",
          "  list: %d deleted, %d still enabled" % (gone, other), st.get(gone), st.get(other))
    time.sleep(0.3)
    h0 = hits(s, gone)
    ok, a0, b0 = grows(s, other, 0.2)
    h1 = hits(s, gone)
    check(ok and h0 == h1, "  its hits stay (%s, %s) while %d's grow (%s to %s)" %
          (h0, h1, other, a0, b0))
    a = s.cmd("enable %d" % gone)
    check(a[-1].startswith("error:") and "deleted" in a[-1], "  enable %d: it is deleted" % gone, a)

def last_one(s, last, rest, before, what):
    a = s.cmd("delete %d" % last)
    check(a[-1] == "ok deleted 1", "%s: delete %d, the last of the pair" % (what, last), a)
    # (and the other probes placed: func:'s exit)
    a = s.cmd("delete " + " ".join(str(i) for i in rest)) if rest else ["ok"]
    diff = same_code(before, pid)
    check(not diff and a[-1].startswith("ok"),
          "  the code is as before the attach, still attached", diff, a)

PY

live_start "$PROG"
live_checks <<'PY'
exec(open("helpers.py").read())
before = code_snapshot(pid)
s = Spool(spool, pid, ["-e", "func:live_work", "-e", "args:live_work", "-o", "a.trace"])
o, r = pair(s, "live_work", "entry")
check(o is not None and r is not None, "attached: args:live_work runs in func:live_work's code",
      s.cmd("list"))
if o and r:
    deleted_alone(s, r, o, "rider first")
    l = parse_list(s.cmd("list"))
    last_one(s, o, [i for i in l if i not in (o, r) and l[i]["state"] != "deleted"], before,
             "rider first")
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0", rc, open("spool.err").read())
PY
live_stop

live_start "$PROG"
live_checks <<'PY'
exec(open("helpers.py").read())
before = code_snapshot(pid)
s = Spool(spool, pid, ["-e", "func:live_work", "-e", "args:live_work", "-e",
                       "func:live_callfirst", "-e", "args:live_callfirst:long->long",
                       "-o", "b.trace"], err="spool2.err")
riders = []
for fn, at in (("live_work", "entry"), ("live_callfirst", "exit")):
    o, r = pair(s, fn, at)
    if o is None or r is None:
        check(False, "%s: a combined pair at its %s" % (fn, at), s.cmd("list"))
        continue
    deleted_alone(s, o, r, "%s, host first" % fn)
    riders.append(r)
a = s.cmd("delete " + " ".join(str(i) for i in riders))
check(a[-1] == "ok deleted %d" % len(riders), "delete the riders, the last of their pairs", a)
l = parse_list(s.cmd("list"))
a = s.cmd("delete " + " ".join(str(i) for i in l if l[i]["state"] != "deleted"))
diff = same_code(before, pid)
check(not diff and a[-1].startswith("ok"),
      "every probe deleted: the code is as before the attach, still attached", diff, a)
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0", rc, open("spool2.err").read())
PY
live_stop
# the values the probe left alone read are the program's: live_callfirst(x)
# returns 5x + 1, read by the args: probe in the deleted exit's slot
"$SPOOL" report --vars --json --limit 0 b.trace >vars.json 2>/dev/null
v=$(python3 - <<'PY'
import json
rets = [int(p["value"]) for v in json.load(open("vars.json"))["vars"]
        if v.get("function") == "live_callfirst" and v["name"] == "return" for p in v["values"]]
print("rets %d bad %d" % (len(rets), sum(1 for r in rets if r < 1 or (r - 1) % 5)))
PY
)
like "$v" "^rets [1-9][0-9]* bad 0$" "live_callfirst's returns read are 5x + 1 ($v)"
done_testing
