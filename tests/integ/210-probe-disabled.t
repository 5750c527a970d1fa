#!/bin/bash
# SPDX-License-Identifier: MIT
# 210-probe-disabled.t - probes placed disabled (--disabled SPEC, and
# "add --disabled SPEC" while attached) record nothing until enabled, jump
# and int3 probes alike: in launch mode the report has no call of the
# disabled function while the enabled one's calls are there; attached,
# their hits stay 0 until "enable", then grow.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_live"
if [ ! -x "$PROG" ] || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP $PROG is not built (x86-64 only), or no python3"
	exit 0
fi
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
while IFS=$'\t' read -r res desc why; do
	if [ "$res" = PASS ]; then pass "$desc"; else fail "$desc"; diag "$why"; fi
done <checks.out
[ -s checks.err ] && diag "$(cat checks.err)" "$(cat spool.err)"
touch stop.now
wait "$PID"
is "$?:$(tr '\n' '|' <prog.out)" "0:ready|done check ok|" "the program's output and status are its own"
