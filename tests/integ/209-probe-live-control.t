#!/bin/bash
# SPDX-License-Identifier: MIT
# 209-probe-live-control.t - spool probe -p PID --control PATH: the same
# commands on a unix socket (a client at a time, each answer ending with
# "ok ..." or "error: ..."). A socket in a directory others can write, or
# at a path that exists, is refused before the program is touched; the
# socket is gone after the detach, the program's code is as it was.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_live"
if [ ! -x "$PROG" ] || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP $PROG is not built (x86-64 only), or no python3"
	exit 0
fi
plan 12

rm -f stop.now
"$PROG" stop.now >prog.out &
PID=$!
wait_for ready prog.out 15

# refused: a world-writable directory, an existing path
spool_run probe -p "$PID" --control /tmp/spool-209-$$.sock -e 'func:live_work'
num_cmp "$RC" -ne 0 "a control socket in a directory others can write is refused"
like "$ERR" "must be a directory of yours that no one else can write" "... and spool says why"
mkdir -m 700 ctl
: >ctl/taken
spool_run probe -p "$PID" --control ctl/taken -e 'func:live_work'
num_cmp "$RC" -ne 0 "a control path that exists is refused"
like "$ERR" "already exists" "... and spool says so"

"$SPOOL" probe -p "$PID" --control ctl/sock -e 'func:live_work' -o t.trace </dev/null \
	>spool.out 2>spool.err &
SPID=$!
python3 - "$PID" "$REPO/tests/integ" >checks.out 2>checks.err <<'PY'
import os, sys, time
sys.path.insert(0, sys.argv[2])
from probe_live import Control, parse_list, code_snapshot, same_code

pid = int(sys.argv[1])

def check(ok, desc, *why):
    print(("PASS\t" if ok else "FAIL\t") + desc + "".join("\t" + str(w) for w in why), flush=True)

before = code_snapshot(pid)
c = Control("ctl/sock")
check(oct(os.stat("ctl/sock").st_mode & 0o777) == "0o600", "the socket is the user's only (0600)")
r = c.cmd("add block:live_loop")
check(r[-1].startswith("ok added"), "add block:live_loop over the socket", r)
ids = sorted(parse_list(r))
hit = 0
for _ in range(100):
    l = parse_list(c.cmd("list"))
    hit = sum(l[i]["hits"] or 0 for i in ids)
    if hit:
        break
    time.sleep(0.1)
check(hit > 0, "... its blocks count hits", hit)
c.close()
c = Control("ctl/sock")
check(c.cmd("list")[-1].startswith("ok"), "a second client is served after the first left")
check(c.cmd("detach")[-1] == "ok detaching", "detach over the socket")
c.close()
PY
while IFS=$'\t' read -r res desc why; do
	if [ "$res" = PASS ]; then pass "$desc"; else fail "$desc"; diag "$why"; fi
done <checks.out
[ -s checks.err ] && diag "$(cat checks.err)" "$(cat spool.err)"
wait "$SPID"
is "$?" 0 "spool exits 0"
ok "the socket is removed" test ! -e ctl/sock
touch stop.now
wait "$PID"
is "$?:$(tr '\n' '|' <prog.out)" "0:ready|done check ok|" "the program's output and status are its own"
