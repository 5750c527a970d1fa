#!/bin/bash
# SPDX-License-Identifier: MIT
# 106-redis-bg-thread.t - Debian's redis-server with jemalloc's background
# thread on (its default), recorded in serial mode while redis-benchmark
# and redis-cli drive it, replayed 10 times with no client: every replay
# identical to the recording. Every serial replay used to diverge near the
# end ("a different switch point" in thread 0, at a jemalloc lock): the
# first malloc of the process runs in a library constructor (libgpg-error's
# bindtextdomain, loaded through libsystemd) before the agent's, and
# jemalloc reads CLOCK_MONOTONIC_COARSE there for its purge epochs. That
# reading was not recorded, so a replay started the epochs from its own
# clock, seconds after the recorded readings, and its main thread woke the
# background thread at other points. The recording now keeps such a read
# (early_clock= in .spool/record) and the replay gets it back
# (agent_rr_early.c, doc/record.md).
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
rr_corpus redis-bg-thread serial --client redis_client --replays 10 -- \
	redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
	--daemonize no --logfile "" --jemalloc-bg-thread yes
rec="$T_DIR/corpus/redis-bg-thread.serial/rec.trace/.spool/record"
# what spool noted: the clock reads made before the agent started
like "$(grep '^early_clock=' "$rec" 2>/dev/null)" '^early_clock=6:[0-9]+' \
	"the recording keeps jemalloc's CLOCK_MONOTONIC_COARSE read from before the agent started"
# the background thread was there and numbered: 5 threads (main, 3 bio, jemalloc's)
like "$("$SPOOL" info "$T_DIR/corpus/redis-bg-thread.serial/rec.trace" 2>&1 | grep '^threads=')" '^threads=5$' \
	"the recording has jemalloc's background thread among its 5 threads"
done_testing
