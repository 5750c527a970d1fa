#!/bin/bash
# SPDX-License-Identifier: MIT
# 79-redis-jemalloc-thread.t - Debian's redis-server under spool record:
# its jemalloc (libjemalloc.so.2, loaded after the agent) finds
# pthread_create with dlsym(RTLD_NEXT, ...) and starts its background
# thread with glibc's, which the agent never saw: record warned "a thread
# spool could not number made recorded calls" and a replay diverged at
# that thread's first lock. The agent's dlsym now gives such a lookup the
# agent's pthread_create (doc/record.md, "Threads"). In both modes the
# server answers redis-cli (PING, SET, GET) and shuts down, and the
# recording has no unnumbered thread; a serial replay of it exits 0
# (sockets and argv[0] are recorded too).
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-cli
plan 8

for mode in serial sync; do
	port=$(free_port)
	timeout -k 5 120 "$SPOOL" record --mode "$mode" -o "$mode.trace" -- redis-server \
		--port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
		>"$mode.out" 2>"$mode.err" </dev/null &
	spid=$!
	up=0
	for ((i = 0; i < 100; i++)); do
		if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; then
			up=1
			break
		fi
		sleep 0.1
	done
	got="$up $(redis-cli -p "$port" set k v 2>&1) $(redis-cli -p "$port" get k 2>&1)"
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1
	wait "$spid"
	src=$?
	is "$got" "1 OK v" "$mode: redis-server answers PING, SET and GET while recorded"
	is "$src" 0 "$mode: spool record ends with the server's status (0)"
	if ! grep -q 'could not number' "$mode.err" && grep -q 'recorded .*redis-server' "$mode.err"; then
		pass "$mode: no thread spool could not number (jemalloc's background thread is numbered)"
	else
		fail "$mode: no thread spool could not number (jemalloc's background thread is numbered)"
		diag "$(cat "$mode.err")"
	fi
	timeout -k 5 60 "$SPOOL" replay -q "$mode.trace" >"$mode.rep.out" 2>"$mode.rep.err"
	rrc=$?
	if [ "$mode" = serial ]; then
		ok "$mode: a replay exits 0" test $rrc = 0
	else
		# sync mode does not order jemalloc's and redis's racing reads
		# (doc/record.md, the corpus): a replay ends as recorded or
		# stops at a reported divergence, never silently otherwise
		ok "$mode: a replay exits 0, or stops at a reported divergence (3)" \
			bash -c "[ $rrc = 0 ] || { [ $rrc = 3 ] && grep -q 'replay diverged' $mode.rep.err; }"
	fi
done
done_testing
