#!/bin/bash
# SPDX-License-Identifier: MIT
# 342-probe-attach-shm-stranger.t - spool probe -p on a process of another
# user hands its shared memory over an abstract Unix socket
# (src/probe/probe_shm_send.c), whose name every process of the network
# namespace can see: only the attached process (SO_PEERCRED) may receive
# the descriptor. Here a stranger - another process of the same user
# (nobody) as the attached program - connects first: spool closes the
# connection unanswered (no byte, no descriptor), and the attached process
# then gets the descriptor and the attach succeeds. The stranger learns the
# name and connects first through a test-only hook (SPOOL_TEST_SHM_WAIT:
# spool prints the name and waits for a file before the target connects).
# Needs root (to run programs as another user), setpriv and /usr/bin/python3
# (nobody may not reach a python3 under root's home).
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || [ ! -x /usr/bin/python3 ]; then
	echo "1..0 # SKIP needs root, setpriv and /usr/bin/python3 (runs programs as nobody)"
	exit 0
fi
plan 7

D="$(mktemp -d /tmp/spool-342.XXXXXX)"
chmod 755 "$D"
trap 'rm -rf "$D"; _t_cleanup' EXIT
setpriv --reuid=65534 --regid=65534 --clear-groups -- "$PROG" 60 "$D/stop" >prog.out &
PID=$!
for i in $(seq 1 200); do [ -s prog.out ] && break; sleep 0.05; done

cat >"$D/stranger.py" <<'PY'
# connect to the abstract socket @NAME, wait for a message with descriptors
import socket, sys
name = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect("\0" + name[1:])
try:
    msg, anc, _, _ = s.recvmsg(16, socket.CMSG_SPACE(16))
except socket.timeout:
    print("timeout")
    sys.exit(0)
fds = [d for lvl, typ, d in anc if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS]
print("bytes %d fds %d" % (len(msg), sum(len(d) // 4 for d in fds)))
PY

(
	SPOOL_TEST_SHM_WAIT="$D/go" spool_run probe -p "$PID" -e 'func:attach_work' \
		--duration 500ms -o at.trace
	echo "$RC" >spool.rc
) &
SP=$!
name=
for i in $(seq 1 200); do
	name="$(sed -n 's/^spool: test: shared memory socket \(@[^ ]*\)$/\1/p' run.err 2>/dev/null)"
	[ -n "$name" ] && break
	sleep 0.05
done
like "$name" '^@spool-shm-' "spool hands its shared memory over an abstract socket (and says its name: the test hook)"
got="$(setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/python3 "$D/stranger.py" "$name" 2>&1)"
touch "$D/go"
wait "$SP"
check_sanitizer run.err "spool probe -p"
ERR="$(cat run.err)"
is "$got" "bytes 0 fds 0" \
	"a stranger (same user as the program, another process) connecting first: closed unanswered, no descriptor"
is "$(cat spool.rc)" 0 "the attached process then gets it: attached and detached (exit 0)" || diag "$ERR"
unlike "$ERR" 'could not start' "  the agent started"
spool_run report --functions --json at.trace
echo "$OUT" >f.json
num_cmp "$(json f.json 'sum(f["calls"] for f in d["functions"] if f["name"] == "attach_work")')" -gt 0 \
	"  attach_work's calls counted"

touch "$D/stop"
wait "$PID"
is "$?" 0 "the program runs on after the detach and exits normally"
like "$(tail -n 1 prog.out)" '^done calls [0-9]+ check ok$' "  with correct results"

done_testing
