#!/bin/bash
# SPDX-License-Identifier: MIT
# 93-memcached.t - a real multithreaded server from Debian, recorded and
# replayed in serial mode: memcached -vv with two worker threads serves a
# client over TCP (set and get of 20 keys), then is stopped with SIGTERM.
# The replay has no client and no network: accept, the requests (read),
# epoll_wait, the peer address (getpeername) and the clocks come from the
# recording, and memcached's -vv log of every request is reproduced byte
# for byte, three times.
. "$(dirname "$0")/lib.sh"

if ! command -v memcached >/dev/null; then
	plan 1
	skip 1 "memcached not installed (scripts/deps.sh installs it)"
	done_testing
fi
plan 9

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
s.close()
print(sum(o.count("STORED") for o in out), "stored,", sum(o.count("VALUE") for o in out), "values")
PY

# A free port: memcached says so and exits when it cannot bind.
port=$((20000 + RANDOM % 20000))
timeout -k 5 60 "$SPOOL" record -o mc.trace -- memcached -vv -U 0 -l 127.0.0.1 -p "$port" \
	-t 2 -u root >rec.out 2>rec.err </dev/null &
spool_pid=$!
python3 client.py "$port" >client.out 2>&1
is "$(cat client.out)" "20 stored, 20 values" "the recorded memcached served the client"
pkill -TERM -f "memcached -vv -U 0 -l 127.0.0.1 -p $port" 
wait "$spool_pid"
RC=$?
ERR=$(cat rec.err)
is_rc 0 "record exits with memcached's status (it handles SIGTERM)"
like "$ERR" 'recorded memcached \(serial mode' "spool record says what it recorded"
grep -v '^spool:' rec.err >rec.log
num_cmp "$(grep -c 'STORED' rec.log)" -ge 20 "memcached -vv logged the requests"

same=0
for i in 1 2 3; do
	spool_run replay -q mc.trace
	grep -v '^spool:' run.err >rep.log
	if [ "$RC" = 0 ] && cmp -s rep.log rec.log && cmp -s run.out rec.out; then
		same=$((same + 1))
	else
		show_run
		diag "$(diff rec.log rep.log | head -n 10)"
	fi
done
is "$same" 3 "3 replays of 3 reproduce memcached's log byte for byte"
unlike "$(cat run.err)" 'getpeername' "the peer address comes from the recording"

# The replay made no connection: nobody was there to serve, and the log
# still shows the client's requests.
like "$(cat rep.log)" 'get k19' "the replay's log has the last request"
"$SPOOL" replay --dump-schedule mc.trace >sched.txt 2>/dev/null
num_cmp "$(grep -c '^input .* call 8 ' sched.txt)" -ge 1 "the recording has the accept"
num_cmp "$(grep -c '^input .* call 24 ' sched.txt)" -ge 1 "and the peer's address (getpeername)"
done_testing
