#!/bin/bash
# SPDX-License-Identifier: MIT
# 109-redis-early-reads.t - Debian's redis-server, recorded in serial and
# in sync mode while redis-benchmark and redis-cli drive it, replayed 3
# times with no client. What it reads before the agent's constructor runs
# is recorded: jemalloc's first malloc, in libgpg-error's constructor, reads
# /proc/sys/vm/overcommit_memory and transparent_hugepage/enabled through
# syscall(SYS_read); the trace keeps them in .spool/early_io and the replay
# gives them back (agent_rr_early.c). In sync mode redis's hash seed,
# fread of /dev/urandom in main before any thread, goes through stdio
# inside libc: it is now recorded too (RR_F_STDIO_SOLO, 0x80000, in the
# recording's flags), so a sync replay no longer runs with another seed;
# a sync replay must still be identical or stop at a reported divergence
# (jemalloc's mutexes spin on an atomic before they lock).
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-benchmark redis-cli od
plan 8

redis_client() {
	wait_port "$PORT" || { echo "redis-server did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	redis-benchmark -h 127.0.0.1 -p "$PORT" -n 1000 -c 2 -t set,get -q
	redis-cli -h 127.0.0.1 -p "$PORT" set corpus-key hello
	redis-cli -h 127.0.0.1 -p "$PORT" get corpus-key
	redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave
}
# early_reads TRACE: the number of calls kept in TRACE/.spool/early_io
early_reads() {
	od -An -tu4 -N4 "$1/.spool/early_io" 2>/dev/null | tr -d ' '
}
for mode in serial sync; do
	PORT=$(free_port)
	if [ "$mode" = serial ]; then
		rr_corpus redis-early "$mode" --client redis_client -- \
			redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
			--daemonize no --logfile ""
	else
		rr_corpus redis-early "$mode" --client redis_client \
			--may-diverge "jemalloc's mutexes spin on an atomic" -- \
			redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
			--daemonize no --logfile ""
	fi
	tr="$T_DIR/corpus/redis-early.$mode/rec.trace"
	n=$(early_reads "$tr")
	num_cmp "${n:-0}" -ge 2 \
		"$mode: the trace keeps jemalloc's reads made before the agent started (.spool/early_io)"
	flags=$(sed -n 's/^flags=//p' "$tr/.spool/record")
	if [ "$mode" = serial ]; then
		ok "serial: stdio's reads and writes recorded (RR_F_STDIO)" test $((${flags:-0} & 0x40000)) != 0
	else
		ok "sync: stdio's calls before the first thread recorded (RR_F_STDIO_SOLO): the hash seed" \
			test $((${flags:-0} & 0x80000)) != 0
	fi
done
done_testing
