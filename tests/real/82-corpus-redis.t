#!/bin/bash
# SPDX-License-Identifier: MIT
# 82-corpus-redis.t - the record/replay corpus: Debian's redis-server
# recorded in serial and in sync mode while redis-benchmark (4 clients,
# SET and GET) and redis-cli drive it on 127.0.0.1, then redis-cli
# SHUTDOWN NOSAVE ends it; each recording replayed 3 times with no client
# at all (rr_corpus, tests/real/lib.sh): exit status, its log on stdout and
# the files in its directory are the recording's. Sync mode cannot replay
# redis exactly: jemalloc's mutexes spin on an atomic before they lock
# (atomics used for synchronization, which sync mode does not order), so
# each sync replay must be identical or stop at a reported divergence.
#
# Verdicts that do not vary: 3 serial replays of one recording gave exit
# status 3, 0, 3, then (with a fixed layout and jemalloc's background
# thread numbered) every serial replay diverged near the end, at a jemalloc
# lock in thread 0: jemalloc's first malloc runs in a library constructor
# before the agent's, and its CLOCK_MONOTONIC_COARSE read there, the start
# of its purge epochs, was not recorded. It is now (early_clock=,
# tests/real/106-redis-bg-thread.t replays it 10 times), and the first
# check is a real one. The last check runs the variant without the
# background thread under setarch -R and replays it 6 times. It gives the
# replay no command line: the replay runs the recorded argv[0]
# ("redis-server"); the absolute path it was once given to avoid the
# resolved redis-check-rdb made redis take the path as it is where the
# recording asked getcwd for its directory (getAbsolutePath), and every
# replay diverged at event 14.
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-benchmark redis-cli setarch
plan 6

PORT=$(free_port)
redis_client() {
	wait_port "$PORT" || { echo "redis-server did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	redis-benchmark -h 127.0.0.1 -p "$PORT" -n 2000 -c 4 -t set,get -q
	redis-cli -h 127.0.0.1 -p "$PORT" set corpus-key hello
	redis-cli -h 127.0.0.1 -p "$PORT" get corpus-key
	redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave
}
PORT=$(free_port)
rr_corpus redis-server serial --client redis_client -- \
	redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
	--daemonize no --logfile ""
PORT=$(free_port)
rr_corpus redis-server sync --client redis_client \
	--may-diverge "jemalloc's mutexes spin on an atomic" -- \
	redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
	--daemonize no --logfile ""
PORT=$(free_port)
rr_corpus redis-server-fixed serial --client redis_client --wrap "setarch -R" \
	--replays 6 -- redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
	--daemonize no --logfile "" --jemalloc-bg-thread no
done_testing
