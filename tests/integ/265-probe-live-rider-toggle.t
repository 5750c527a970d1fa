#!/bin/bash
# SPDX-License-Identifier: MIT
# 265-probe-live-rider-toggle.t - a probe combined with another at one point
# (the second runs in the first's code: `shared` in list) is disabled and
# enabled on its own while the program runs: its hits stop while the other
# probe's go on, and start again; one in a jump's trampoline (args: with
# func: at live_work's entry) and one in an int3's out-of-line slot (args:
# at live_callfirst's ret, whose exit is an int3). One placed disabled
# (--disabled) is enabled later. The values it read are the program's, the
# code is as before after the detach. Before, such a probe could only be
# deleted with the other (now on its own too: 277).
. "$(dirname "$0")/lib.sh"

live_prog
plan 25

# rets TRACE FUNC MUL ADD: "rets R bad B": the return values of FUNC read,
# and how many are not MUL * x + ADD for an x >= 0
rets() {
	"$SPOOL" report --vars --json --limit 0 "$1" >vars.json 2>/dev/null
	python3 - "$2" "$3" "$4" <<'PY'
import json, sys
fn, mul, add = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rets = [int(p["value"]) for v in json.load(open("vars.json"))["vars"]
        if v.get("function") == fn and v["name"] == "return" for p in v["values"]]
print("rets %d bad %d" % (len(rets), sum(1 for r in rets if r < add or (r - add) % mul)))
PY
}

live_start "$PROG"
live_checks <<'PY'
before = code_snapshot(pid)
s = Spool(spool, pid, COMBINED + ["-o", "att.trace"])
l = parse_list(s.cmd("list"))
riders = {l[i]["function"]: i for i in l if l[i]["method"] == "shared" and l[i]["op"] == "var"}
check("live_work" in riders and "live_callfirst" in riders,
      "attached: an args: probe of live_work and one of live_callfirst run in other probes' code", l)
for fn in ("live_work", "live_callfirst"):
    r, o = riders.get(fn), None
    # the probe whose code it runs in: the placed one of the same function
    o = min((i for i in l if l[i]["function"] == fn and l[i]["method"] != "shared"), default=None)
    if r is None or o is None:
        check(False, "%s: a combined probe and its host" % fn, l)
        continue
    a = s.cmd("disable %d" % r)
    check(a[-1] == "ok disabled 1", "%s: disable of the combined probe %d alone" % (fn, r), a)
    st = parse_list(s.cmd("list"))
    check(st[r]["state"] == "disabled" and st[o]["state"] == "enabled",
          "  list: it is disabled, probe %d still enabled" % o, st[r], st[o])
    time.sleep(0.3)
    h0 = hits(s, r)
    ok, a0, b0 = grows(s, o, 0.2)
    h1 = hits(s, r)
    check(ok and h0 == h1, "  its hits stay (%s, %s) while probe %d's grow (%s to %s)" %
          (h0, h1, o, a0, b0))
    a = s.cmd("enable %d" % r)
    check(a[-1] == "ok enabled 1", "  enable %d" % r, a)
    ok, a1, b1 = grows(s, r, 0.2)
    check(ok, "  its hits grow again (%s to %s)" % (a1, b1))
a = s.cmd("delete %d" % riders.get("live_work", 0))
check(a[-1] == "ok deleted 1",
      "delete of a combined probe alone (the other stays: tests/integ/277)", a)
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0", rc, open("spool.err").read())
diff = same_code(before, pid)
check(not diff, "every code byte is what it was before the attach", diff)
PY
live_stop
v=$(rets att.trace live_work 3 7)
like "$v" "^rets [1-9][0-9]* bad 0$" "live_work's returns read are 3x + 7 ($v)"
v=$(rets att.trace live_callfirst 5 1)
like "$v" "^rets [1-9][0-9]* bad 0$" "live_callfirst's returns read are 5x + 1 ($v)"

# placed disabled at the attach (--disabled), enabled later
spool_run probe --list -e func:live_work --disabled args:live_work "$PROG"
like "$OUT" "var +shared .*runs in probe" "--list: --disabled args:live_work runs in func:'s trampoline"
live_start "$PROG"
live_checks <<'PY'
s = Spool(spool, pid, ["-e", "func:live_work", "--disabled", "args:live_work", "-o", "dis.trace"])
l = parse_list(s.cmd("list"))
r = min((i for i in l if l[i]["method"] == "shared" and l[i]["op"] == "var"), default=None)
time.sleep(0.3)
check(r is not None and l[r]["state"] == "disabled" and not hits(s, r),
      "attached with --disabled: the combined probe has no hits", l)
a = s.cmd("enable %d" % r) if r else ["(none)"]
check(a[-1] == "ok enabled 1", "  enable it", a)
ok, a1, b1 = grows(s, r, 0.2) if r else (False, None, None)
check(ok, "  its hits grow (%s to %s)" % (a1, b1))
check(s.cmd("detach")[-1] == "ok detaching", "  detach")
rc, rest = s.close()
check(rc == 0, "  spool exits 0", rc, open("spool.err").read())
PY
live_stop
done_testing
