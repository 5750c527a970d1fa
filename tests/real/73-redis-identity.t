#!/bin/bash
# SPDX-License-Identifier: MIT
# 73-redis-identity.t - Debian's redis-server is a link to redis-check-rdb:
# one binary that chooses what it is from argv[0]. Recorded as
# `redis-server --port P --save ''` (a free port on 127.0.0.1) serving a
# few redis-cli commands, then SHUTDOWN, and replayed 3 times: each replay
# runs the file the recording ran with the recorded argv[0], so redis
# starts in server mode and prints the recorded start-up lines (it used to
# replay /usr/bin/redis-check-rdb as argv[0] and check an RDB file named
# --port). Serial mode (the default).
#
# The whole run replays too: jemalloc's background thread (created through
# a pthread_create found with dlsym) is numbered, and the clients' socket
# calls are recorded (doc/record.md, "Threads", "Sockets").
. "$(dirname "$0")/lib.sh"
need_progs redis-server redis-cli
plan 7

port=$(free_port)
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o r.trace -- redis-server --port "$port" --save '' \
	>rec.out 2>rec.err &
pid=$!
for ((i = 0; i < 100; i++)); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.1
done
replies="$(redis-cli -p "$port" set k 41; redis-cli -p "$port" incr k; redis-cli -p "$port" get k)"
redis-cli -p "$port" shutdown >/dev/null 2>&1
wait $pid
rc=$?
check_sanitizer rec.err "spool record"
is "$rc $(tr '\n' ' ' <<<"$replies")" "0 OK 42 42 " "redis-server recorded serving set, incr, get, then SHUTDOWN" ||
	diag "$(cat rec.err)"
like "$(cat rec.out)" "Running mode=standalone, port=$port" "the recording ran in server mode"
ok "the recording keeps the file run (the link) beside the binary behind it" \
	grep -qx "path=$(command -v redis-server)" r.trace/.spool/record

# The start-up: everything up to "Ready to accept connections".
startup() { sed -n '1,/Ready to accept connections/p' "$1"; }
same=0
for i in 1 2 3; do
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q r.trace >rep$i.out 2>rep$i.err
	echo $? >rep$i.rc
	check_sanitizer rep$i.err "spool replay"
	if [ -n "$(startup rec.out)" ] && [ "$(startup rep$i.out)" = "$(startup rec.out)" ]; then
		same=$((same + 1))
	else
		diag "replay $i:" "$(diff <(startup rec.out) <(startup rep$i.out) | head -n 10)"
	fi
	diag "replay $i: exit $(cat rep$i.rc): $(head -n 1 rep$i.err)"
done
unlike "$(cat rep1.out rep2.out rep3.out)" "Checking RDB|redis-check-rdb" \
	"no replay runs redis-check-rdb"
like "$(cat rep1.out)" "Running mode=standalone, port=$port" "the replay starts in server mode"
is "$same" 3 "3 replays print the recorded start-up, pid and times included"
ok "3 replays exit 0 with the recorded output" \
	bash -c "[ \"\$(cat rep*.rc | sort -u)\" = 0 ] && cmp -s rec.out rep1.out &&
		cmp -s rec.out rep2.out && cmp -s rec.out rep3.out"

done_testing
