#!/bin/bash
# SPDX-License-Identifier: MIT
# 74-redis-cli-replay.t - Debian's redis-cli, a client on 127.0.0.1,
# recorded against a redis-server and replayed with the server gone (issue
# 13: connect, bind and getsockname ran for real in a replay, so a client
# could not replay once its server had stopped). The client resolves
# "localhost" (getaddrinfo), makes a non-blocking connect (EINPROGRESS,
# poll, SO_ERROR), sets TCP_NODELAY and keep-alive, sends three commands
# read from stdin (incr, lrange, info server: a counter, a list, the
# server's pid, port and uptime) and prints the answers. Recorded in serial
# and in sync mode; the server is stopped; each recording is replayed 3
# times: exit 0 and the recorded output, byte for byte. A native run at
# that point cannot connect (what the replays would do if they touched the
# network).
#
# Record and replay run under `setarch -R` (no address-space randomization):
# redis-cli's jemalloc takes other paths when its mappings land elsewhere
# (sync replays then diverge on its locks, serial ones on its clock reads),
# and a fixed layout is issue 13's other part; when spool sets it itself,
# setarch changes nothing.
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-cli "$REAL_PY" setarch
plan 8

# spool under setarch -R, for every spool_run below.
printf '#!/bin/sh\nexec setarch -R "%s" "$@"\n' "$SPOOL" >spool-norand
chmod +x spool-norand
SPOOL=$T_DIR/spool-norand

port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
	>srv.log 2>&1 </dev/null &
srv=$!
for _ in $(seq 100); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.1
done
redis-cli -p "$port" rpush list a b c >/dev/null
printf 'incr counter\nlrange list 0 -1\ninfo server\n' >cmds.txt

RUN_STDIN=cmds.txt
for mode in serial sync; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- redis-cli -h localhost -p "$port"
	cp run.out "$mode.out"
	is "$RC:$(grep -c "^tcp_port:$port" run.out)" "0:1" "$mode: the recorded redis-cli got the server's answers" ||
		show_run
done
kill "$srv"
wait "$srv" 2>/dev/null
redis-cli -h localhost -p "$port" ping >native.out 2>&1
RC=$?
like "$RC $(cat native.out)" 'Could not connect|refused' "with the server gone, redis-cli itself cannot connect"

for mode in serial sync; do
	replays_same 3 0 "$mode.out" -q -o rep.trace "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 without the server exit 0 with the recorded output"
done
like "$(cat run.out)" "^process_id:$srv" "the replays print the pid of the server that is gone"
"$SPOOL" replay --dump-schedule serial.trace >sched.txt 2>/dev/null
num_cmp "$(grep -c '^input .* call 41 ' sched.txt)" -ge 1 "the recording has the name lookup (getaddrinfo)"
num_cmp "$(grep -c '^input .* call 33 ' sched.txt)" -ge 1 "and the connect"
done_testing
