#!/bin/bash
# SPDX-License-Identifier: MIT
# 131-memcached-sync-timeouts.t - Debian's memcached (-t 2, -vv: a log
# line per request on stderr) recorded in sync mode while a Python client
# sets and gets 200 keys on 127.0.0.1, then SIGTERM ends it: 3 recordings,
# each replayed 3 times with no client, every replay identical (exit
# status, stdout, stderr). memcached's LRU maintainer thread wakes from
# usleep and reads the clock (`current_time`) the main thread sets without
# a lock when its epoll_wait times out; sync mode now orders what follows a
# sleep or a timeout after what the other threads had done when it ran out
# (doc/record.md "Wake-ups through a descriptor"). Before, about half the
# sync recordings diverged in that thread (reported; tests/real/83 allows
# it), 2 of 4 in the last measurement.
. "$(dirname "$0")/lib.sh"
need_progs memcached
plan 6

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
for r in 1 2 3; do
	PORT=$(free_port)
	rr_corpus "memcached-$r" sync --client mc_client -- \
		memcached -u root -vv -t 2 -U 0 -l 127.0.0.1 -p "$PORT"
done
done_testing
