#!/bin/bash
# SPDX-License-Identifier: MIT
# 145-apache2-event-all.t - Debian's apache2 2.4 with mpm_event (stripped;
# a parent that forks one worker process, whose listener thread and 4
# worker threads serve through APR's mutexes and condition variables; the
# worker drops root for www-data) serving a static file on 127.0.0.1,
# driven by curl, under every command as a new user would try it: spool
# locks, spool probe (func: on the executable's exported functions and
# APR's, block:, sys:io), spool path, spool record and spool replay in
# serial and sync mode (3 replays each, with no client: the error log on
# stdout, with the clients' ports and times, must be the recording's (not
# on stderr, where spool's own lines would overwrite its appends); sync
# mode may stop at a reported divergence: the worker learns of its end by a
# signal from the parent, which sync mode does not order), the snapshots
# of a process tree and of a process that changed its user (none can be
# written: spool says why, and replay --goto starts from the beginning),
# spool probe -p attached to the running worker, spool report, export and
# info. SIGTERM to the parent stops it (exit 0).
. "$(dirname "$0")/lib.sh"
need_progs apache2 curl
plan 29

MODS=/usr/lib/apache2/modules
[ -f "$MODS/mod_mpm_event.so" ] || { echo "1..0 # SKIP no $MODS/mod_mpm_event.so"; exit 0; }
# www-data serves the file: it must reach it
chmod 755 "$T_DIR"
mkdir -m 755 www
echo "hello from apache" >www/hello.txt
chmod 644 www/hello.txt
PORT=$(free_port)
cat >httpd.conf <<EOF
ServerRoot $T_DIR
LoadModule mpm_event_module $MODS/mod_mpm_event.so
LoadModule authz_core_module $MODS/mod_authz_core.so
Listen 127.0.0.1:$PORT
ServerName localhost
User www-data
Group www-data
PidFile $T_DIR/httpd.pid
DefaultRuntimeDir $T_DIR
Mutex file:$T_DIR
ErrorLog /dev/stdout
LogLevel info
DocumentRoot $T_DIR/www
StartServers 1
ServerLimit 1
ThreadsPerChild 4
ThreadLimit 4
MinSpareThreads 1
MaxSpareThreads 4
MaxRequestWorkers 4
<Directory $T_DIR/www>
  Require all granted
</Directory>
EOF
AP=(apache2 -f "$T_DIR/httpd.conf" -DFOREGROUND)

# ap_client: 3 requests (2 of a file, 1 of none), their status and body
ap_client() {
	local p
	for p in hello.txt nope hello.txt; do
		curl -s -m 10 -o body.tmp -w '%{http_code} ' "http://127.0.0.1:$PORT/$p"
		if [ "$p" = nope ]; then echo; else cat body.tmp; fi
	done
}
printf '200 hello from apache\n404 \n200 hello from apache\n' >want.client

# the service for svc_native and svc_spool (lib.sh): up once it accepts on
# PORT, ended by SIGTERM to its parent
SVC=("${AP[@]}")
SVC_SIG=TERM
svc_up() { wait_port "$PORT" "$T_TIMEOUT" "$SVC_PID"; }
svc_client() { ap_client; }
svc_native
ok "apache2 alone: 200, 404, 200 with the file, exit 0 on SIGTERM" \
	bash -c "[ $NATIVE_RC = 0 ] && cmp -s native.client want.client" ||
	diag "$(cat native.client native.out native.err)"

# --- locks
svc_spool locks -o lk.trace
ok "locks: exit 0, the client got apache2's answers" svc_same || show_run
report_json lk.trace
mutexes=$(json report.json "sum(l['acquisitions'] for l in d['locks'] if l['type'] == 'mutex')")
cwaits=$(json report.json "sum((l.get('cond') or {}).get('waits', 0) for l in d['locks'])")
diag "locks: ${mutexes:-?} mutex acquisitions, ${cwaits:-?} condition waits"
num_cmp "${mutexes:-0}" -ge 100 "locks: APR's mutexes are listed with their acquisitions"
num_cmp "${cwaits:-0}" -ge 1 "locks: the worker queue's condition waits are counted"
"$SPOOL" info lk.trace >lkinfo.txt 2>&1
ok "locks: spool info says 2 processes, 0 events lost" \
	bash -c "grep -qx 'processes=2' lkinfo.txt && grep -qx 'lost: 0 events' lkinfo.txt" || diag "$(cat lkinfo.txt)"

# --- probe: the request path (exported), APR's pools, one block map, I/O
svc_spool probe -o fa.trace -e 'func:ap_process_request_internal' \
	-e 'func:libapr-1.so*:apr_pool_create_ex' -e 'block:ap_process_request_internal' -e sys:io
ok "probe func:, block:, sys:io: exit 0, the answers" svc_same || show_run
"$SPOOL" report --functions --json fa.trace >fa.json 2>/dev/null
reqs=$(json fa.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'ap_process_request_internal')")
pools=$(json fa.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'apr_pool_create_ex')")
is "$reqs" 3 "probe: ap_process_request_internal ran once a request (3)"
num_cmp "${pools:-0}" -ge 3 "probe: APR's apr_pool_create_ex calls are counted (${pools:-?})"
"$SPOOL" report --coverage --json fa.trace >cov.json 2>/dev/null
hit=$(json cov.json "sum(f['blocks_hit'] for f in d['functions'] if f['name'] == 'ap_process_request_internal')")
num_cmp "${hit:-0}" -ge 5 "probe: block: counted the request path's blocks (${hit:-?} hit)"
"$SPOOL" report --sys --json fa.trace >sys.json 2>/dev/null
sent=$(json sys.json "sum(r['bytes'] for t in d['threads'] for r in t['io'] if r['dir'] == 'write' and r['kind'] == 'socket')")
num_cmp "${sent:-0}" -ge 3 "probe sys:io: the replies written to sockets are counted (${sent:-?} bytes)"

# --- path
svc_spool path -o pa.trace -w path.txt
ok "path: exit 0, the answers" svc_same || show_run
nthr=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[2]}' path.txt | sort -u | wc -l)
num_cmp "$nthr" -ge 3 "path: function entries of the parent and the worker's threads ($nthr threads)"

# --- record and replay: driven by curl, replayed alone
ap_rr_client() {
	wait_port "$PORT" || { kill -TERM "$(prog_of "$1")"; return 1; }
	ap_client
	kill -TERM "$(prog_of "$1")"
}
for mode in serial sync; do
	may=()
	[ "$mode" = sync ] && may=(--may-diverge "the parent's SIGTERM to its worker is not ordered")
	rr_corpus apache2 "$mode" --client ap_rr_client "${may[@]}" -- "${AP[@]}"
	ok "$mode: the client got apache2's answers while it was recorded" \
		cmp -s "$T_DIR/corpus/apache2.$mode/client.log" want.client
done

# --- snapshots: a tree takes them in its first process only
svc_spool record --snap-period 1 -o snap.trace
ok "record --snap-period 1: exit 0, the answers" svc_same || show_run
like "$ERR" 'no snapshot: only the first process of a tree takes them, and [0-9,]+ of the [0-9,]+ switches were in the other 1 process' \
	"record --snap-period 1: spool says why the tree has no snapshot"
# one process (-X), whose copies run as www-data: none can be written
SVC=(apache2 -f "$T_DIR/httpd.conf" -X)
svc_spool record --snap-period 1 -o snapx.trace
ok "record -X --snap-period 1: exit 0, the answers" svc_same || show_run
if grep -q 'snapshot images\? could not be written' run.err; then
	like "$ERR" 'could not be written \(Permission denied: the program changed its user or group' \
		"record -X: spool says why the snapshots could not be written"
else
	like "$ERR" 'spool: 0 snapshots' "record -X: no snapshot taken (no switch found every thread parked)"
fi
spool_run replay -o g.trace --goto 100 snapx.trace
ok "replay --goto without a snapshot: starts from the beginning and says so, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'no snapshot of snapx.trace at or before that event can be restored: replaying from the start' run.err" || show_run

# --- attach: spool probe -p on the worker of an apache2 started without spool
"${AP[@]}" >att.log 2>&1 &
apid=$!
wait_port "$PORT"
wpid=$(pgrep -P "$apid" | head -n 1)
timeout -k 10 "$T_TIMEOUT" "$SPOOL" probe -p "$wpid" -d 4s -o at.trace \
	-e 'func:ap_process_request_internal' >at.out 2>at.err &
sp=$!
for i in $(seq 100); do grep -q 'probes placed' at.err && break; sleep 0.1; done
ap_client >client.out 2>&1
wait "$sp"
RC=$?
check_sanitizer at.err "spool probe -p (apache2)"
ok "probe -p on the worker: attached, detached after 4 s, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'attached to pid $wpid' at.err && grep -q 'detached, its code restored' at.err" ||
	diag "$(cat at.err)"
"$SPOOL" report --functions --json at.trace >at.json 2>/dev/null
is "$(json at.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'ap_process_request_internal')")" 3 \
	"probe -p: the 3 requests went through ap_process_request_internal"
ap_client >client2.out 2>&1
kill -TERM "$apid"
wait "$apid"
rc=$?
ok "probe -p: apache2 answered while probed and after, and exits 0" \
	bash -c "[ $rc = 0 ] && cmp -s client.out want.client && cmp -s client2.out want.client"

# --- report, export, info on the locks trace
"$SPOOL" report lk.trace >rep.txt 2>&1
ok "report: exit 0, the lock table" bash -c "[ $? = 0 ] && grep -q '^locks (' rep.txt" || diag "$(head rep.txt)"
"$SPOOL" export --perfetto -w lk.pftrace lk.trace >/dev/null 2>exp.err
ok "export --perfetto: exit 0, a file" bash -c "[ $? = 0 ] && [ -s lk.pftrace ]" || diag "$(cat exp.err)"
"$SPOOL" export --chrome -w lk.json lk.trace >/dev/null 2>exp.err
ok "export --chrome: exit 0, JSON" bash -c "[ $? = 0 ] && $REAL_PY -c 'import json; json.load(open(\"lk.json\"))'" ||
	diag "$(cat exp.err)"
done_testing
