#!/bin/bash
# SPDX-License-Identifier: MIT
# 83-corpus-memcached.t - the record/replay corpus: Debian's memcached
# (-t 2, -vv: a log line per request on stderr) recorded in serial and in
# sync mode while a Python client sets and gets 200 keys on 127.0.0.1,
# then SIGTERM ends it; each recording replayed 3 times with no client.
# Its threads read shared state without locks (its clock, statistics), so
# each sync replay must be identical or stop at a reported divergence,
# never differ silently. Since sleeps and timeouts are ordered (the LRU
# maintainer reads the clock after its usleep), its sync replays are
# identical: tests/real/131 checks that.
. "$(dirname "$0")/lib.sh"
need_progs memcached
plan 4

mc_client() {
	wait_port "$PORT" || { echo "memcached did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	"$REAL_PY" - "$PORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
f = s.makefile("rwb")
for i in range(200):
    v = b"value-%d" % (i * i)
    f.write(b"set k%d 0 0 %d\r\n%s\r\n" % (i, len(v), v)); f.flush()
    assert f.readline() == b"STORED\r\n"
for i in range(200):
    f.write(b"get k%d\r\n" % i); f.flush()
    f.readline(); f.readline(); assert f.readline() == b"END\r\n"
print("200 set, 200 get")
PY
	sleep 0.2
	kill -TERM "$(prog_of "$1")"
}
PORT=$(free_port)
rr_corpus memcached serial --client mc_client \
	-- \
	memcached -u root -vv -t 2 -U 0 -l 127.0.0.1 -p "$PORT"
PORT=$(free_port)
rr_corpus memcached sync --client mc_client \
	--may-diverge "data races: sync mode does not order them" -- \
	memcached -u root -vv -t 2 -U 0 -l 127.0.0.1 -p "$PORT"
done_testing
