#!/bin/bash
# SPDX-License-Identifier: MIT
# 93-corpus-lighttpd.t - the record/replay corpus: Debian's lighttpd (an
# epoll server, foreground with -D) serving static files on 127.0.0.1 to
# a bounded curl loop (30 requests), then SIGTERM; recorded in serial and
# in sync mode, replayed 3 times each with no client: exit status, its
# error log and the files in its directory are the recording's.
. "$(dirname "$0")/lib.sh"
need_progs lighttpd curl
plan 4

mkdir -p site/www
for i in $(seq 1 10); do seq 1 $((i * 100)) >"site/www/f$i.txt"; done
lighttpd_client() {
	local i
	wait_port "$PORT" || { echo "lighttpd did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	for i in $(seq 1 30); do
		curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$PORT/f$((i % 10 + 1)).txt"
	done
	kill -TERM "$(prog_of "$1")"
}
# Under `setarch -R` (no randomization: what the layout fix does) the
# replays get past the SIGSEGV and diverge at an accept (sockets).
for m in serial sync; do
	PORT=$(free_port)
	cat >site/lighttpd.conf <<CONF
server.document-root = "$T_DIR/corpus/lighttpd.$m.wd/www"
server.bind = "127.0.0.1"
server.port = $PORT
server.errorlog = "$T_DIR/corpus/lighttpd.$m.wd/error.log"
server.max-worker = 0
CONF
	rr_corpus lighttpd "$m" --dir site --client lighttpd_client -- \
		lighttpd -D -f lighttpd.conf
done
done_testing
