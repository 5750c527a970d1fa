#!/bin/bash
# SPDX-License-Identifier: MIT
# 334-probe-attach-other-user.t - spool probe -p on a process of another
# user (doc/probe.md, attach mode): probe_attach runs as nobody (setpriv,
# as a daemon that dropped root would), spool as root. The agent loaded
# into it cannot open spool's shared memory by /proc/SPOOL/fd/N, and gets
# the descriptor over an abstract Unix socket instead: attached, the probe
# counts the program's calls, sys:io is counted too, the detach is normal,
# the program's results are right and it ends normally. Needs root (to run
# a program as another user) and setpriv.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "1..0 # SKIP needs root and setpriv (runs the program as nobody)"
	exit 0
fi
plan 7

# a directory nobody can use (the test's own is root's, 0700)
D="$(mktemp -d /tmp/spool-334.XXXXXX)"
chmod 755 "$D"
trap 'rm -rf "$D"; _t_cleanup' EXIT
setpriv --reuid=65534 --regid=65534 --clear-groups -- "$PROG" 60 "$D/stop" >prog.out &
PID=$!
for i in $(seq 1 200); do [ -s prog.out ] && break; sleep 0.05; done
is "$(awk '/^Uid:/ {print $3}' "/proc/$PID/status")" 65534 "the program runs as nobody"

spool_run probe -p "$PID" -e sys:io -e 'func:attach_work' --duration 500ms -o at.trace
is_rc 0 "spool probe -p on a process of another user: attached and detached (exit 0)"
unlike "$ERR" 'could not start' "  the agent started (its shared memory handed over a socket)"
spool_run report --functions --json at.trace
echo "$OUT" >f.json
num_cmp "$(json f.json 'sum(f["calls"] for f in d["functions"] if f["name"] == "attach_work")')" -gt 0 \
	"  attach_work's calls counted"
spool_run report --sys at.trace
like "$OUT" 'dir +kind +calls' "  and sys:io's report is there"

touch "$D/stop"
wait "$PID"
is "$?" 0 "the program runs on after the detach and exits normally"
like "$(tail -n 1 prog.out)" '^done calls [0-9]+ check ok$' "  with correct results"

done_testing
