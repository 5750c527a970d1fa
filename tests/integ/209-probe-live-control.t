#!/bin/bash
# SPDX-License-Identifier: MIT
# 209-probe-live-control.t - spool probe -p PID --control PATH: the same
# commands on a unix socket (a client at a time, each answer ending with
# "ok ..." or "error: ..."). A socket in a directory others can write, or
# at a path that exists, is refused before the program is touched; the
# socket is gone after the detach, the program's code is as it was.
. "$(dirname "$0")/lib.sh"

live_prog
plan 12

live_start "$PROG"

# refused: a world-writable directory, an existing path
spool_run probe -p "$LIVE_PID" --control /tmp/spool-209-$$.sock -e 'func:live_work'
num_cmp "$RC" -ne 0 "a control socket in a directory others can write is refused"
like "$ERR" "must be a directory of yours that no one else can write" "... and spool says why"
mkdir -m 700 ctl
: >ctl/taken
spool_run probe -p "$LIVE_PID" --control ctl/taken -e 'func:live_work'
num_cmp "$RC" -ne 0 "a control path that exists is refused"
like "$ERR" "already exists" "... and spool says so"

"$SPOOL" probe -p "$LIVE_PID" --control ctl/sock -e 'func:live_work' -o t.trace </dev/null \
	>spool.out 2>spool.err &
SPID=$!
live_checks <<'PY'
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
wait "$SPID"
is "$?" 0 "spool exits 0"
ok "the socket is removed" test ! -e ctl/sock
live_stop
