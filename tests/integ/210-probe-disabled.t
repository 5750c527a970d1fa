#!/bin/bash
# SPDX-License-Identifier: MIT
# 210-probe-disabled.t - probes placed disabled (--disabled SPEC, and
# "add --disabled SPEC" while attached) record nothing until enabled, jump
# and int3 probes alike: in launch mode the report has no call of the
# disabled function while the enabled one's calls are there; attached,
# their hits stay 0 until "enable", then grow.
. "$(dirname "$0")/lib.sh"

live_prog
plan 10

# --- launch mode ---------------------------------------------------------------
rm -f stop.now
(sleep 1; touch stop.now) &
spool_run probe --disabled 'func:live_work' -e 'func:live_leaf' -- "$PROG" stop.now
wait
is "$RC:$(tr '\n' '|' <<<"$OUT")" "0:ready|done check ok|" "launch mode: the program runs as it does unprobed"
like "$ERR" "4 of 4 probes placed" "... every probe placed, the disabled ones too"
like "$ERR" "live_leaf +[1-9][0-9]* " "... the enabled probe counts"
unlike "$ERR" "live_work +[0-9]" "... the disabled one records nothing"

# --- attach mode -----------------------------------------------------------------
live_start "$PROG"
live_checks <<'PY'
before = code_snapshot(pid)
s = Spool(spool, pid, ["--disabled", "func:live_work", "-o", "t.trace"])
r = s.cmd("add --disabled func:live_callfirst")
time.sleep(0.5)
l = parse_list(s.cmd("list"))
check([l[i]["state"] for i in sorted(l)] == ["disabled"] * 4 and
      all(l[i]["hits"] == 0 for i in l), "placed disabled (jump and int3): no hits", l)
s.cmd("enable 1 2 3 4")
grew = False
for _ in range(100):
    l = parse_list(s.cmd("list"))
    if all(l[i]["hits"] for i in l):
        grew = True
        break
    time.sleep(0.1)
check(grew, "enabled, every one counts", l)
check(s.cmd("detach")[-1] == "ok detaching", "detach")
rc, rest = s.close()
check(rc == 0, "spool exits 0", rc)
diff = same_code(before, pid)
check(not diff, "the code is as before the attach", diff)
PY
live_stop
