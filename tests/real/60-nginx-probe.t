#!/bin/bash
# SPDX-License-Identifier: MIT
# 60-nginx-probe.t - Debian's nginx (stripped, -O2: its exported ngx_*
# functions) with a master and two workers, every ngx_* function probed
# (jumps, and where no jump fits a ret, ngx_vslprintf's, its return address
# swapped: the master forks its workers from inside swapped frames; the
# master's logging runs). nginx's master blocks the signals it handles
# (not SIGTRAP: tests/real/quick/20-python-signals-blocked.t blocks them
# all) and waits for them in sigsuspend, so its reloads and worker spawns
# run with those blocked, between signal handlers. Under the probes nginx
# serves 200 requests, reloads its configuration on SIGHUP (new workers),
# serves again, and stops on SIGQUIT with status 0, the master's own
# functions counted in the report.
. "$(dirname "$0")/lib.sh"
need_progs nginx
plan 12

port=$(free_port)
# nginx's workers run as an unprivileged user: they must read the files.
chmod 755 "$T_DIR"
mkdir -p logs html
echo "hello from nginx" >html/index.html
cat >nginx.conf <<CONF
daemon off;
master_process on;
worker_processes 2;
pid $T_DIR/nginx.pid;
error_log $T_DIR/logs/error.log info;
events { worker_connections 64; }
http {
  access_log $T_DIR/logs/access.log;
  client_body_temp_path $T_DIR/tmp_body;
  proxy_temp_path $T_DIR/tmp_proxy;
  fastcgi_temp_path $T_DIR/tmp_fastcgi;
  uwsgi_temp_path $T_DIR/tmp_uwsgi;
  scgi_temp_path $T_DIR/tmp_scgi;
  server { listen 127.0.0.1:$port; root $T_DIR/html; }
}
CONF
cat >client.py <<'PY'
# client.py PORT N: N GET / on one keep-alive connection; prints the
# distinct bodies with their counts.
import collections, http.client, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
for _ in range(200):
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.connect()
        break
    except OSError:
        time.sleep(0.05)
seen = collections.Counter()
for _ in range(n):
    c.request("GET", "/")
    r = c.getresponse()
    seen["%d %s" % (r.status, r.read().decode().strip())] += 1
print(dict(seen))
PY

"$SPOOL" probe --list -e 'func:ngx_*' "$(command -v nginx)" >list.txt 2>/dev/null
like "$(grep '^ngx_vslprintf ' list.txt)" ' exit +retaddr ' "ngx_vslprintf's exit goes through the return address (no jump fits its ret)"

# Native figure first (diagnostics only).
timeout -k 5 60 nginx -p "$T_DIR" -c "$T_DIR/nginx.conf" 2>native.err &
npid=$!
wall timeout 30 "$REAL_PY" client.py "$port" 200 >native.out
native_s=$WALL
kill -QUIT "$npid" 2>/dev/null
wait "$npid"
rm -f logs/error.log

timeout -k 5 120 "$SPOOL" probe -o ng.trace -e 'func:ngx_*' -- \
	nginx -p "$T_DIR" -c "$T_DIR/nginx.conf" >ng.out 2>ng.err </dev/null &
spid=$!
wall timeout 30 "$REAL_PY" client.py "$port" 200 >c1.out
diag "200 requests on one connection: native ${native_s} s, every ngx_* function probed ${WALL} s"
is "$(cat c1.out)" "{'200 hello from nginx': 200}" "probed nginx served 200 requests"
is "$(cat native.out)" "$(cat c1.out)" "as it does alone"
master=$(cat nginx.pid 2>/dev/null)
num_cmp "$(pgrep -c -P "${master:-0}")" -eq 2 "the master runs two workers"

kill -HUP "$master"
wait_for 'gracefully shutting down' logs/error.log 20
timeout 30 "$REAL_PY" client.py "$port" 20 >c2.out
is "$(cat c2.out)" "{'200 hello from nginx': 20}" "after SIGHUP (reload, new workers) it serves again"
kill -QUIT "$master"
wait "$spid"
RC=$?
ERR=$(cat ng.err)
is_rc 0 "SIGQUIT stops nginx with status 0 (spool probe exits with it)"
like "$(cat logs/error.log)" "$master#$master: exit" "the master logged its normal exit"
unlike "$(cat logs/error.log)" 'signal [0-9]+ \(SIG(TRAP|SEGV|BUS|ILL)\)|exited on signal' \
	"no process of nginx died of a signal"
like "$ERR" '^spool: ([0-9]+) of \1 probes placed' "every probe was placed"

"$SPOOL" report --functions --json ng.trace >f.json 2>/dev/null
calls_in() { # FUNCTION TID: calls of FUNCTION by thread TID
	json f.json "sum(t['calls'] for f in d['functions'] if f['name'] == '$1' for t in f['threads'] if t['tid'] == $2)"
}
num_cmp "$(calls_in ngx_init_cycle "$master")" -eq 2 \
	"the master's ngx_init_cycle ran twice, probed (the reload runs in its signal loop)"
num_cmp "$(calls_in ngx_spawn_process "$master")" -ge 4 "the master spawned 2 + 2 workers"
num_cmp "$(calls_in ngx_vslprintf "$master")" -ge 5 "the master's logging went through the swapped return address"
done_testing
