#!/bin/bash
# SPDX-License-Identifier: MIT
# 94-corpus-nginx.t - the record/replay corpus: Debian's nginx (one
# process: daemon off, master_process off; epoll, a thread pool for its
# file reads with aio threads) serving static files on 127.0.0.1 to a
# bounded curl loop (30 requests), then SIGQUIT (graceful); recorded in
# serial and in sync mode, 3 replays each with no client.
. "$(dirname "$0")/lib.sh"
need_progs nginx curl
plan 4

mkdir -p site/www site/logs
for i in $(seq 1 10); do seq 1 $((i * 500)) >"site/www/f$i.txt"; done
nginx_client() {
	local i
	wait_port "$PORT" || { echo "nginx did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	for i in $(seq 1 30); do
		curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$PORT/f$((i % 10 + 1)).txt"
	done
	kill -QUIT "$(prog_of "$1")"
}
# Under `setarch -R` (no randomization: what the layout fix does) the
# serial replays are identical. Sync mode cannot replay nginx exactly: its
# thread pool hands finished tasks back through a queue under its own
# spinlock (ngx_spinlock: atomics, which sync mode does not order); under
# `setarch -R` its sync replays call a null event handler (SIGSEGV), which
# spool reports. Each sync replay must be identical or stop at a reported
# divergence.
for m in serial sync; do
	PORT=$(free_port)
	how=()
	[ "$m" = sync ] && how=(--may-diverge "nginx's thread pool uses its own spinlock")
	wd="$T_DIR/corpus/nginx.$m.wd"
	cat >site/nginx.conf <<CONF
daemon off;
master_process off;
error_log $wd/logs/error.log info;
pid $wd/logs/nginx.pid;
thread_pool default threads=2;
events { worker_connections 64; }
http {
	access_log $wd/logs/access.log;
	client_body_temp_path $wd/logs;
	proxy_temp_path $wd/logs;
	fastcgi_temp_path $wd/logs;
	uwsgi_temp_path $wd/logs;
	scgi_temp_path $wd/logs;
	server {
		listen 127.0.0.1:$PORT;
		root $wd/www;
		aio threads;
	}
}
CONF
	rr_corpus nginx "$m" --dir site --client nginx_client "${how[@]}" -- \
		nginx -p "$wd" -c "$wd/nginx.conf"
done
done_testing
