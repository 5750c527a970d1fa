#!/bin/bash
# SPDX-License-Identifier: MIT
# 85-corpus-python-asyncio.t - the record/replay corpus: Debian's python3
# running an asyncio TCP echo server on 127.0.0.1 port 0 and 20 client
# tasks against it in the same process (epoll, a self-pipe socketpair,
# the port the kernel chose, timers), plus asyncio.to_thread (its default
# executor's threads); recorded in serial and in sync mode, 3 replays
# each. In sync mode CPython cannot replay exactly (its GIL hands over
# through atomics besides its mutex): each replay must be identical or
# stop at a reported divergence.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 4

mkdir app
cat >app/aio.py <<'PY'
import asyncio, hashlib
async def handle(r, w):
    while data := await r.readline():
        w.write(data.upper())
        await w.drain()
    w.close()
def digest(n):
    return hashlib.sha1(str(n).encode()).hexdigest()[:6]
async def client(port, i):
    r, w = await asyncio.open_connection("127.0.0.1", port)
    got = []
    for k in range(5):
        w.write(b"msg %d %d\n" % (i, k))
        await w.drain()
        got.append((await r.readline()).decode().strip())
        await asyncio.sleep(0.001)
    w.close()
    return got[-1] + " " + await asyncio.to_thread(digest, i)
async def main():
    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    res = await asyncio.gather(*(client(port, i) for i in range(20)))
    srv.close()
    await srv.wait_closed()
    print("port", port > 0, "\n".join(res))
asyncio.run(main())
PY
rr_corpus python3-asyncio serial --dir app -- "$REAL_PY" aio.py
rr_corpus python3-asyncio sync --dir app \
	--may-diverge "CPython's GIL hands over through atomics" -- "$REAL_PY" aio.py
done_testing
