#!/bin/bash
# SPDX-License-Identifier: MIT
# 107-redis-sync-replay.t - Debian's redis-server recorded in sync mode
# while redis-benchmark (4 clients, SET and GET) and redis-cli drive it on
# 127.0.0.1, then replayed with no client: without jemalloc's background
# thread, whose wake-ups read counters other threads change without a lock
# (atomics, which sync mode does not order), every replay must be
# identical (exit status, its log on stdout, the files in its directory).
#
# Every sync replay used to stop while redis still had one thread, at a
# jemalloc trylock where the recording had a lock (or the reverse). Not a
# race: the replay's environment had one variable fewer than the
# recording's (spool's SPOOL_EARLY_IO took the place of the recording's
# SPOOL_PAD= and was removed), redis copies its environment for
# setproctitle, so jemalloc's decay ticker fired after other allocations.
# Both runs now have the variable and lose it (early_clock.h). Then it
# stopped at the creation of jemalloc's background thread: glibc's calloc
# of the new thread's TLS vector took jemalloc's locks inside
# pthread_create, recorded before the creation, which a replay checks
# first (agent_rr.c, agent_rr_create_begin). The last check records
# redis with its background thread, in the form of 82: each replay
# identical or stopped at a reported divergence, never a silent difference.
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-benchmark redis-cli
plan 4

redis_client() {
	wait_port "$PORT" || { echo "redis-server did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	redis-benchmark -h 127.0.0.1 -p "$PORT" -n 2000 -c 4 -t set,get -q
	redis-cli -h 127.0.0.1 -p "$PORT" set corpus-key hello
	redis-cli -h 127.0.0.1 -p "$PORT" get corpus-key
	redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave
}
PORT=$(free_port)
rr_corpus redis-server-nobg sync --client redis_client -- \
	redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
	--daemonize no --logfile "" --jemalloc-bg-thread no
PORT=$(free_port)
rr_corpus redis-server-bg sync --client redis_client \
	--may-diverge "jemalloc's background thread reads atomics" -- \
	redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
	--daemonize no --logfile ""
done_testing
