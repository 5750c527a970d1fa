#!/bin/bash
# SPDX-License-Identifier: MIT
# 72-lighttpd-replay.t - Debian's lighttpd, an epoll server that keeps its
# connections' pointers in epoll_event.data, recorded serving 60 requests
# from curl on 127.0.0.1 (a free port) and stopped with SIGTERM, in serial
# and sync mode, then replayed 3 times each. The replay hands back the
# recorded epoll events: it used to die of SIGSEGV in fdevent_poll, its heap
# being elsewhere (address-space randomization); record and replay now run
# at one fixed layout (doc/record.md, "Address-space layout").
#
# lighttpd ends each connection with shutdown(fd, SHUT_WR); since socket
# calls are recorded (doc/record.md, "Sockets") the replays end as
# recorded, with the recorded access and error logs.
. "$(dirname "$0")/lib.sh"
need_progs lighttpd curl
plan 14

mkdir www
for i in 1 2 3 4 5; do
	head -c $((i * 3000)) /dev/zero | tr '\0' "$i" >www/f$i.txt
done

# one mode: record, 60 requests, SIGTERM, 3 replays
run_mode() {
	local mode=$1 port pid i n bad=0 verdicts
	port=$(free_port)
	mkdir -p logs
	cat >$mode.conf <<CONF
server.document-root = "$PWD/www"
server.port = $port
server.bind = "127.0.0.1"
server.errorlog = "$PWD/logs/error.log"
server.modules = ("mod_accesslog")
accesslog.filename = "$PWD/logs/access.log"
server.max-worker = 0
CONF
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode "$mode" -o $mode.trace -- \
		lighttpd -D -f $mode.conf >$mode.rec.out 2>$mode.rec.err &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		curl -s -o /dev/null "http://127.0.0.1:$port/f1.txt" && break
		sleep 0.1
	done
	# 60 more requests, 5 to a connection (keep-alive), then SIGTERM
	for ((n = 0; n < 60; n += 5)); do
		curl -s "http://127.0.0.1:$port/f1.txt" "http://127.0.0.1:$port/f2.txt" \
			"http://127.0.0.1:$port/f3.txt" "http://127.0.0.1:$port/f4.txt" \
			"http://127.0.0.1:$port/f5.txt" >resp.out || bad=$((bad + 1))
		cmp -s resp.out <(cat www/f1.txt www/f2.txt www/f3.txt www/f4.txt www/f5.txt) ||
			bad=$((bad + 1))
	done
	kill -TERM "$(prog_of $pid)" 2>/dev/null
	wait $pid
	local rc=$?
	check_sanitizer $mode.rec.err "spool record"
	is "$rc $bad $(grep -c '" 200 ' logs/access.log)" "0 0 61" \
		"$mode: lighttpd recorded serving 60 requests (and the one that found it up), stopped by SIGTERM, exit 0" ||
		diag "$(cat $mode.rec.err)"
	mv logs $mode.logs.rec
	verdicts=""
	for i in 1 2 3; do
		mkdir logs
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q $mode.trace >$mode.rep$i.out 2>$mode.rep$i.err
		echo $? >$mode.rep$i.rc
		check_sanitizer $mode.rep$i.err "spool replay"
		mv logs $mode.logs.rep$i
		verdicts+="$(cat $mode.rep$i.rc) $(grep -v '^  ' $mode.rep$i.err | head -n 1)"$'\n'
	done
	unlike "$(cat $mode.rep*.err)" "killed by signal" \
		"$mode: no replay is killed by a signal (the recorded epoll pointers are valid)"
	ok "$mode: none ends in a signal" test "$(cat $mode.rep*.rc | sort -nu | tail -n 1)" -lt 128
	is "$(sort -u <<<"$verdicts" | grep -c .)" 1 "$mode: the 3 replays end the same way" ||
		diag "$verdicts"
	is "$(head -n 1 $mode.logs.rep1/error.log | cut -d' ' -f3-)" \
		"$(head -n 1 $mode.logs.rec/error.log | cut -d' ' -f3-)" \
		"$mode: the replay starts the server as recorded"
	diag "$mode: replay verdict: $(head -n 1 <<<"$verdicts")"
	ok "$mode: 3 replays exit 0 and write the recorded access log" \
		bash -c "[ \"\$(cat $mode.rep*.rc | sort -u)\" = 0 ] &&
			cmp -s $mode.logs.rec/access.log $mode.logs.rep1/access.log &&
			cmp -s $mode.logs.rec/access.log $mode.logs.rep2/access.log &&
			cmp -s $mode.logs.rec/access.log $mode.logs.rep3/access.log"
	ok "$mode: ... and the recorded error log" \
		cmp -s $mode.logs.rec/error.log $mode.logs.rep1/error.log
}

run_mode serial
run_mode sync

done_testing
