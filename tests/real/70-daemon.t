#!/bin/bash
# SPDX-License-Identifier: MIT
# 70-daemon.t - `spool locks -- memcached -d`: Debian's memcached forks a
# daemon and its first process exits at once, the common shape of servers
# (nginx and redis do the same by default). spool exited with the first
# process, said "0 lock events, 0 lost", and the daemon's two worker
# threads served 20 sets and 20 gets into rings nobody read: a silent
# loss (issue 12; the trace sometimes has the daemon's first events, those
# spool drained as it ended). Either spool follows the daemon until it
# exits and its lock events are in the trace, or it says that a process it
# traced is still running and what that costs. spool now waits for the
# daemon (it says so) and ends with it.
. "$(dirname "$0")/lib.sh"
need_progs memcached
plan 5

cat >client.py <<'PY'
import socket, sys, time
port = int(sys.argv[1])
for _ in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", port))
        break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("cannot connect")
def cmd(c, end):
    s.sendall(c)
    data = b""
    while not data.endswith(end):
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.decode()
out = [cmd(b"set k%d 0 0 5\r\nval%02d\r\n" % (k, k), b"\r\n") for k in range(20)]
out += [cmd(b"get k%d\r\n" % k, b"END\r\n") for k in range(20)]
print(sum(o.count("STORED") for o in out), "stored,", sum(o.count("VALUE") for o in out), "values")
PY

port=$(free_port)
timeout -k 5 60 "$SPOOL" locks -o d.trace -- memcached -d -U 0 -l 127.0.0.1 -p "$port" -t 2 \
	-u root -P "$T_DIR/mc.pid" >spool.out 2>spool.err </dev/null &
spid=$!
timeout 30 "$REAL_PY" client.py "$port" >client.out 2>&1
is "$(cat client.out)" "20 stored, 20 values" "the daemon served the client"
# (a second later: spool may still be busy ending when the client is done)
sleep 1
following=0
kill -0 "$spid" 2>/dev/null && following=1
daemon=$(cat mc.pid 2>/dev/null)
kill -TERM "${daemon:-0}" 2>/dev/null
for ((i = 0; i < 100; i++)); do
	kill -0 "${daemon:-0}" 2>/dev/null || break
	sleep 0.1
done
wait "$spid"
src=$?
ERR=$(cat spool.err)
num_cmp "${daemon:-0}" -gt 0 "memcached wrote its daemon's pid"
"$SPOOL" info d.trace >info.out 2>&1
traced=$(awk -v p="$daemon" '$2 == p { n += $4 } END { print n + 0 }' info.out)
if [ "$following" = 1 ]; then
	pass "spool still traced the daemon when the client was served"
	num_cmp "$traced" -gt 0 "the daemon's events are in the trace"
	is "$src" 0 "spool ended with the daemon, exit 0 (nothing lost)"
else
	fail "spool still traced the daemon when the client was served"
	like "$ERR" "pid $daemon|daemon|still running|still runs" "spool says the daemon it traced went on without it"
	is "$src" 4 "spool exits 4 (the trace is incomplete)"
fi
done_testing
