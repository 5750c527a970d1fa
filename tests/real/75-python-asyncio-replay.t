#!/bin/bash
# SPDX-License-Identifier: MIT
# 75-python-asyncio-replay.t - Debian's python3 running an asyncio server
# and its client in one process (issue 13: bind and getsockname ran for
# real in a replay, so a server that binds port 0 printed another port):
# asyncio.start_server on 127.0.0.1 port 0 (getaddrinfo, socket,
# setsockopt, bind, listen, getsockname: the port is printed), three
# clients in turn with open_connection (a non-blocking connect, epoll,
# SO_ERROR, accept4 with the peer's address), each sending a line that the
# server echoes with the client's port; asyncio's own socketpair wakes its
# loop. Recorded in serial and in sync mode, each replayed 3 times: exit 0
# and the recorded output, the same port included, while another process
# holds that port. The traces are kept outside the script's directory
# (python3 lists it when it imports; directory listings are issue 13's
# other part).
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 7

mkdir app out
cat >app/echo.py <<'PY'
import asyncio

async def handle(reader, writer):
    line = await reader.readline()
    port = writer.get_extra_info("peername")[1]
    writer.write(b"echo " + line.strip() + b" from a client port %s\n" %
                 (b"known" if port in clients else b"unknown"))
    await writer.drain()
    writer.close()

clients = set()

async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print("listening on port", port)
    for i in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        clients.add(writer.get_extra_info("sockname")[1])
        writer.write(b"hello %d\n" % i)
        print((await reader.readline()).decode().strip())
        writer.close()
        await writer.wait_closed()
    server.close()
    await server.wait_closed()
    print("done")

asyncio.run(main())
PY
cd out || exit 1
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$REAL_PY" ../app/echo.py
	cp run.out "$mode.out"
	is "$RC:$(grep -c 'from a client port known' run.out)" "0:3" \
		"$mode: the recorded server answered its 3 clients" || show_run
done
port=$(sed -n 's/^listening on port \([0-9]*\)$/\1/p' serial.out)
"$REAL_PY" -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("ready", flush=True); time.sleep(300)' "$port" >occ.out 2>&1 &
occ=$!
wait_ready occ.out
like "$(cat occ.out)" '^ready' "another process holds the recorded port $port"
for mode in serial sync; do
	replays_same 3 0 "$mode.out" -q -o rep.trace "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 exit 0 with the recorded output and port"
done
kill "$occ"
wait "$occ" 2>/dev/null
"$SPOOL" replay --dump-schedule sync.trace >sched.txt 2>/dev/null
num_cmp "$(grep -c '^input .* call 34 ' sched.txt)" -ge 1 "the recording has the bind"
num_cmp "$(grep -c '^input .* call 32 ' sched.txt)" -ge 1 "and asyncio's socketpair"
cd "$T_DIR" || exit 1
done_testing
