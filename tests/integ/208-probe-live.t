#!/bin/bash
# SPDX-License-Identifier: MIT
# 208-probe-live.t - spool probe -p PID --commands: while the program runs,
# list the probes with their hits, disable and enable one (hits counted
# only while enabled), add a spec (an int3 probe among them), delete a
# probe, detach. The program's output is what it prints unprobed, and after
# the detach every byte of its code (the executable's and every library's
# executable mappings) is what it was before spool attached.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_live"
if [ ! -x "$PROG" ] || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP $PROG is not built (x86-64 only), or no python3"
	exit 0
fi
plan 24

rm -f stop.now
"$PROG" stop.now >prog.out &
PID=$!
wait_for ready prog.out 15

python3 - "$SPOOL" "$PID" "$REPO/tests/integ" >checks.out 2>checks.err <<'PY'
import sys, time
sys.path.insert(0, sys.argv[3])
from probe_live import Spool, parse_list, code_snapshot, same_code

spool, pid = sys.argv[1], int(sys.argv[2])

def check(ok, desc, *why):
    print(("PASS\t" if ok else "FAIL\t") + desc + "".join("\t" + str(w) for w in why), flush=True)

def hits(s, i):
    return parse_list(s.cmd("list")).get(i, {}).get("hits")

def grows(s, i, t=0.3):
    a = hits(s, i)
    for _ in range(50):
        time.sleep(t)
        b = hits(s, i)
        if a is not None and b is not None and b > a:
            return True, a, b
    return False, a, b

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
while IFS=$'\t' read -r res desc why; do
	if [ "$res" = PASS ]; then pass "$desc"; else fail "$desc"; diag "$why"; fi
done <checks.out
[ -s checks.err ] && diag "$(cat checks.err)" "$(cat spool.err 2>/dev/null)"

touch stop.now
wait "$PID"
is "$?:$(cat prog.out | tr '\n' '|')" "0:ready|done check ok|" "the program's output and status are its own"
spool_run report --functions t.trace
like "$ERR$OUT" "live_callfirst" "the trace names the probes added while attached"
