#!/bin/bash
# SPDX-License-Identifier: MIT
# 110-lighttpd-sendfile.t - Debian's lighttpd serving files large enough
# that it sends them with sendfile (300 KB, 100 KB) to a bounded curl loop
# on 127.0.0.1, then SIGTERM; recorded in serial and in sync mode and
# replayed 3 times each with no client. The recording has the sendfile
# calls (RR_CALL_XFER, call 84 in --dump-schedule), and every replay takes
# their results from the log instead of sending to a socket that has no
# client: exit status, error log and files are the recording's.
. "$(dirname "$0")/lib.sh"
need_progs lighttpd curl head
plan 6

mkdir -p site/www
head -c 300000 /dev/zero | tr '\0' 'x' >site/www/big.txt
seq 1 20000 >site/www/mid.txt
lighttpd_client() {
	local i
	wait_port "$PORT" || { echo "lighttpd did not listen on $PORT"; kill -TERM "$(prog_of "$1")"; return 1; }
	for i in 1 2 3 4; do
		curl -s -o /dev/null -w '%{http_code} %{size_download}\n' "http://127.0.0.1:$PORT/big.txt"
		curl -s -o /dev/null -w '%{http_code} %{size_download}\n' "http://127.0.0.1:$PORT/mid.txt"
	done
	kill -TERM "$(prog_of "$1")"
}
for m in serial sync; do
	PORT=$(free_port)
	cat >site/lighttpd.conf <<CONF
server.document-root = "$T_DIR/corpus/lighttpd-sendfile.$m.wd/www"
server.bind = "127.0.0.1"
server.port = $PORT
server.errorlog = "$T_DIR/corpus/lighttpd-sendfile.$m.wd/error.log"
server.max-worker = 0
CONF
	rr_corpus lighttpd-sendfile "$m" --dir site --client lighttpd_client -- \
		lighttpd -D -f lighttpd.conf
	d="$T_DIR/corpus/lighttpd-sendfile.$m"
	n=$("$SPOOL" replay --dump-schedule "$d/rec.trace" 2>/dev/null | awk '$1 == "input" && $7 == 84' | wc -l)
	num_cmp "$n" -ge 8 "$m: the recording has lighttpd's sendfile calls ($n; 8 responses of 100 KB or more)"
done
done_testing
