#!/bin/bash
# SPDX-License-Identifier: MIT
# 82-corpus-redis.t - the record/replay corpus: Debian's redis-server
# recorded in serial and in sync mode while redis-benchmark (4 clients,
# SET and GET) and redis-cli drive it on 127.0.0.1, then redis-cli
# SHUTDOWN NOSAVE ends it; each recording replayed 3 times with no client
# at all (rr_corpus, tests/real/lib.sh): exit status, its log on stdout and
# the files in its directory are the recording's.
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-benchmark redis-cli
plan 4

PORT=$(free_port)
redis_client() {
	wait_port "$PORT" || { echo "redis-server did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	redis-benchmark -h 127.0.0.1 -p "$PORT" -n 2000 -c 4 -t set,get -q
	redis-cli -h 127.0.0.1 -p "$PORT" set corpus-key hello
	redis-cli -h 127.0.0.1 -p "$PORT" get corpus-key
	redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave
}
for m in serial sync; do
	PORT=$(free_port)
	rr_corpus redis-server "$m" --client redis_client \
		--todo "argv[0] (layout), sockets (sock), the verdict at exit" -- \
		redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
		--daemonize no --logfile ""
done
done_testing
