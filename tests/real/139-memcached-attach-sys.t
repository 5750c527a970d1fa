#!/bin/bash
# SPDX-License-Identifier: MIT
# 139-memcached-attach-sys.t - sys:io and sys:mem on a running server:
# Debian's memcached (-t 2) started alone, spool probe -p PID -e sys:io
# -e sys:mem -e sys:cpu attached while a Python client opens a connection
# and makes 300 sets and gets of values of known sizes, detached when it is
# done (doc/probe.md, "System probes"). spool report --sys gives, for the
# sockets, exactly the bytes the client sent (memcached's reads) and
# received (its writes), and more than one read and one write per request;
# the connection's buffers show as allocations of memcached's worker
# thread. memcached serves on after the detach, unchanged (a client run
# after it gets every value back), and a second attach counts again.
. "$(dirname "$0")/lib.sh"
need_progs memcached
plan 12

# mc_client PORT N: N sets and gets on one connection, values 1..60 bytes;
# prints "sent BYTES received BYTES"
mc_client() {
	"$REAL_PY" - "$1" "$2" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
sent = recvd = 0
def until(tok):
    global recvd
    buf = b""
    while not buf.endswith(tok):
        d = s.recv(65536)
        if not d:
            sys.exit("memcached closed the connection")
        buf += d
    recvd += len(buf)
    return buf
for i in range(int(sys.argv[2])):
    v = b"v" * (i % 60 + 1)
    m = b"set k%d 0 0 %d\r\n%s\r\n" % (i, len(v), v)
    s.sendall(m); sent += len(m)
    assert until(b"\r\n") == b"STORED\r\n"
    m = b"get k%d\r\n" % i
    s.sendall(m); sent += len(m)
    assert b"\r\n" + v + b"\r\nEND\r\n" in until(b"END\r\n")
s.close()
print("sent", sent, "received", recvd)
PY
}

PORT=$(free_port)
memcached -u root -t 2 -U 0 -l 127.0.0.1 -p "$PORT" >mc.out 2>mc.err &
MC=$!
wait_port "$PORT" || diag "memcached did not listen on $PORT: $(cat mc.err)"

# attach_sys TRACE: attached with the system probes while the client runs
attach_sys() {
	rm -f cmds
	mkfifo cmds
	timeout -k 10 120 "$SPOOL" probe -p "$MC" --commands -e sys:io -e sys:mem -e sys:cpu \
		-o "$1" <cmds >"$1.out" 2>"$1.err" &
	SP=$!
	exec 3>cmds
	wait_for 'commands on stdin' "$1.err" 60 || diag "no attach: $(tail -n 5 "$1.err")"
	read -r _ SENT _ RECVD < <(mc_client "$PORT" 300)
	echo detach >&3
	exec 3>&-
	wait "$SP"
	ARC=$?
}

attach_sys at.trace
is "$ARC" 0 "spool probe -p memcached -e sys:io -e sys:mem -e sys:cpu: attached while a client ran, detached"
check_sanitizer at.trace.err "spool probe -p"
num_cmp "${SENT:-0}" -gt 0 "  the client made its 300 sets and gets meanwhile ($SENT bytes sent, $RECVD received)"
spool_run report --sys --json at.trace
is_rc 0 "spool report --sys --json on it"
echo "$OUT" >sys.json
sock() { json sys.json "sum(x['$2'] for t in d['threads'] for x in t['io'] if x['dir'] == '$1' and x['kind'] == 'socket')"; }
is "$(sock read bytes)" "$SENT" "  socket bytes read: exactly what the client sent"
is "$(sock write bytes)" "$RECVD" "  socket bytes written: exactly what the client received"
num_cmp "$(sock read calls)" -ge 600 "  a read call or more per request ($(sock read calls))"
num_cmp "$(json sys.json 'sum(t["mem"]["alloc_calls"] for t in d["threads"] if "mem" in t)')" -gt 0 \
	"  the new connection's allocations are counted"
is "$(json sys.json 'all(t["pid"] == '"$MC"' for t in d["threads"])')" 1 "  every thread of memcached's pid"

read -r _ S2 _ R2 < <(mc_client "$PORT" 100)
num_cmp "${S2:-0}" -gt 0 "memcached serves on after the detach (100 sets and gets, every value back)"
unlike "$(grep -c . mc.err)" '^[1-9]' "  and said nothing on stderr"

# (another attach to the same process is refused: spool attaches to one
# once; a new memcached is attached the same way)
kill -TERM "$MC"
wait "$MC"
is "$?" 0 "memcached ends normally on SIGTERM"
PORT=$(free_port)
memcached -u root -t 2 -U 0 -l 127.0.0.1 -p "$PORT" >mc.out 2>mc.err &
MC=$!
wait_port "$PORT" || diag "memcached did not listen on $PORT: $(cat mc.err)"
attach_sys at2.trace
spool_run report --sys --json at2.trace
echo "$OUT" >sys.json
is "$(sock read bytes) $(sock write bytes)" "$SENT $RECVD" "a second memcached, attached: the same bytes counted"
kill -TERM "$MC"
wait "$MC"
done_testing
