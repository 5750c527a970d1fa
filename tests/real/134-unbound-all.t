#!/bin/bash
# SPDX-License-Identifier: MIT
# 134-unbound-all.t - Debian's unbound (a DNS server: num-threads 2, each a
# libevent loop on the same UDP socket; OpenSSL's locks; the executable and
# libevent are stripped) serving a static local zone on 127.0.0.1, under
# every command, as a new user would try it: spool locks, spool probe
# (func:* refused with the reason; func: on libevent's and libc's exported
# functions, args: by the ABI, var: by libc's DWARF, branch:), spool path
# (function entries from its .eh_frame), spool record and spool replay in
# serial and in sync mode (3 replays each, with no client and no network),
# spool record --snap-period and spool replay --goto, spool info and spool
# report on the traces, and spool probe -p attached to a running unbound.
# A Python client sends 4 queries (3 names of the zone, one it does not
# have: NXDOMAIN) and checks the answers; SIGTERM stops the server, which
# prints each thread's statistics on stderr.
. "$(dirname "$0")/lib.sh"
need_progs unbound
plan 35

PORT=$(free_port)
mkdir data
cat >data/ub.conf <<EOF
server:
  interface: 127.0.0.1
  port: $PORT
  num-threads: 2
  do-daemonize: no
  chroot: ""
  username: ""
  directory: "$T_DIR/data"
  pidfile: ""
  use-syslog: no
  logfile: ""
  verbosity: 1
  do-ip6: no
  so-reuseport: no
  access-control: 127.0.0.0/8 allow
  local-zone: "test." static
  local-data: "a.test. IN A 10.0.0.1"
  local-data: "b.test. IN A 10.0.0.2"
  local-data: "c.test. IN TXT \"hello\""
remote-control:
  control-enable: no
EOF
cat >q.py <<'EOF'
import socket, struct, sys
port = int(sys.argv[1])
def query(name, qtype, qid):
    h = struct.pack('>HHHHHH', qid, 0x0100, 1, 0, 0, 0)
    q = b''.join(bytes([len(p)]) + p.encode() for p in name.split('.')) + b'\0'
    return h + q + struct.pack('>HH', qtype, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(10)
for i, (name, qtype) in enumerate([('a.test', 1), ('b.test', 1), ('c.test', 16), ('x.test', 1)]):
    s.sendto(query(name, qtype, 1000 + i), ('127.0.0.1', port))
    r, _ = s.recvfrom(4096)
    qid, flags, qd, an = struct.unpack('>HHHH', r[:8])
    print(name, 'id', qid, 'rcode', flags & 15, 'answers', an, r[-4:].hex() if qtype == 1 else r[-6:-1].decode())
EOF
CONF="$T_DIR/data/ub.conf"
UB=(unbound -d -c "$CONF")

# the service (svc_spool, lib.sh): unbound, up once it says it serves (its
# log on stderr: svc_up LOG), queried by q.py, ended by SIGTERM
SVC=("${UB[@]}")
SVC_SIG=TERM
svc_client() { "$REAL_PY" q.py "$PORT"; }
svc_up() {
	local i
	for i in $(seq 300); do
		grep -q 'start of service' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# unbound alone: the answers a client must get
svc_native
rc=$NATIVE_RC
ok "unbound alone: 4 answers (10.0.0.1, 10.0.0.2, the TXT record, NXDOMAIN), exit 0 on SIGTERM" \
	bash -c "[ $rc = 0 ] && grep -q 'a.test id 1000 rcode 0 answers 1 0a000001' native.client &&
		grep -q 'c.test id 1002 rcode 0 answers 1 hello' native.client &&
		grep -q 'x.test id 1003 rcode 3 answers 0' native.client" || diag "$(cat native.client native.err)"


# --- locks
svc_spool locks -o lk.trace
ok "locks: exit 0, the client got unbound's answers" svc_same || show_run
report_json lk.trace
rw=$(json report.json "sum(l['write']['acquisitions'] for l in d['locks'] if l['type'] == 'rwlock')")
threads=$(json report.json "len(d['threads'])")
diag "locks: ${rw:-?} rwlock write acquisitions (OpenSSL's), ${threads:-?} threads"
num_cmp "${rw:-0}" -ge 10 "locks: OpenSSL's rwlocks are listed with their acquisitions"
is "${threads:-0}" 2 "locks: unbound's two threads"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
spool_run probe -o fa.trace -e 'func:*' -- "${UB[@]}"
ok "probe func:* on the stripped executable: exit status 1, with the reason and what can be probed" \
	bash -c "[ $RC = 1 ] && grep -q \"'func:\\*' matches no function of .*stripped.*func:LIB:GLOB\" run.err" || show_run
svc_spool probe -o ev.trace -e 'func:libevent-2.1.so*:event_*' -e 'func:libc.so*:recvfrom' \
	-e 'func:libc.so*:sendto'
ok "probe func: on libevent and libc: exit 0, the client got unbound's answers" svc_same || show_run
"$SPOOL" report --functions --json ev.trace >ev.json 2>/dev/null
loops=$(json ev.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'event_base_loop')")
recvs=$(json ev.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'recvfrom')")
diag "probe: event_base_loop ${loops:-?} calls, recvfrom ${recvs:-?}"
is "${loops:-0}" 2 "probe: one libevent loop per thread (event_base_loop: 2 calls)"
num_cmp "${recvs:-0}" -ge 4 "probe: the 4 queries were read (recvfrom)"
# event_mm_calloc_ leaves by `jmp calloc@plt` on one path, a stub no call
# in libevent targets: a tail call all the same (before, 23 of its 23 calls
# were "without a seen exit" and its callers looked like its callees)
unlike "$(sed -n '/^event_mm_calloc_ /,/^[a-z_]/p' run.err)" 'without a seen exit' \
	"probe: event_mm_calloc_'s tail call through calloc's PLT stub is its exit"
is "$(json ev.json "len([c['name'] for f in d['functions'] if f['name'] == 'event_add_nolock_' for c in f['callers'] if c['name'] == 'event_mm_calloc_'])")" \
	0 "probe: event_add_nolock_ is not shown called by event_mm_calloc_ (its callee)"

svc_spool probe -o var.trace -e 'args:libc.so*:sendto:int,char*,unsigned long->long' \
	-e 'var:auto:len@libc.so*:sendto:entry' -e 'branch:libevent-2.1.so*:event_base_loop'
ok "probe args:, var: and branch:: exit 0, the client got unbound's answers" svc_same || show_run
"$SPOOL" report --vars --json var.trace >var.json 2>/dev/null
# the replies: UDP sendto calls on unbound's socket; the request list's
# netlink sendto calls are the others. len (libc's DWARF) and arg3 (the ABI)
# read the same register at the same hits
is "$(json var.json "(lambda v: v['len'] == v['arg3'] and len(v['len']) >= 4)({n: [p['value'] for x in d['vars'] if x['name'] == n for p in x['values']] for n in ('len', 'arg3')})")" \
	1 "probe: sendto's len by libc's DWARF and its third argument by the ABI agree, at every call (4 replies at least)"
taken=$("$SPOOL" report --coverage --json var.trace 2>/dev/null |
	"$REAL_PY" -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
num_cmp "${taken:-0}" -ge 1 "probe: event_base_loop's branches were counted"

# --- path
svc_spool path -o pa.trace -w path.txt
ok "path: exit 0, the client got unbound's answers" svc_same || show_run
nthr=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
is "$nthr" 2 "path: function entries of both threads"
ok "path: calls that touched a lock name it" grep -qE ' lock:[^ ]+' path.txt
like "$ERR" 'stripped: [0-9]+ of its functions have no name but their .eh_frame entry' \
	"path: the stripped executable's functions come from its .eh_frame, and spool says so"

# --- record and replay: the server driven by the client, replayed alone
ub_client() {
	svc_up "$T_DIR/corpus/unbound.$mode/rec.err" ||
		{ echo "unbound did not start"; kill -TERM "$(prog_of "$1")"; return 1; }
	"$REAL_PY" "$T_DIR/q.py" "$PORT"
	kill -TERM "$(prog_of "$1")"
}
for mode in serial sync; do
	rr_corpus unbound "$mode" --client ub_client -- "${UB[@]}"
	cp "$T_DIR/corpus/unbound.$mode/client.log" client.$mode
	ok "$mode: the client got unbound's answers while it was recorded" cmp -s client.$mode native.client
done
# spool path on a recording replays it with --record-path: probes (int3
# among them) while the agent runs unbound's SIGTERM handler at its
# recorded point; it called the handler's wrapper with no ucontext, which
# wrote through it: SIGSEGV, "the replay diverged: no path"
spool_run path -w rpath.txt "$T_DIR/corpus/unbound.serial/rec.trace"
nthr=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' rpath.txt 2>/dev/null | sort -u | wc -l)
ok "path on the serial recording (replayed with --record-path): exit 0, entries of both threads" \
	bash -c "[ $RC = 0 ] && [ $nthr = 2 ]" || show_run
tr="$T_DIR/corpus/unbound.sync/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the sync recording: exit 0, 2 threads, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'threads=2' info.txt && grep -qx 'lost: 0 events' info.txt &&
		grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
like "$(cat info.txt)" '^recording: sync mode; spool replay accepts it$' "info: the recording's mode, and that spool replay accepts it"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"

# --- snapshots and --goto: unbound's threads switch at few points (4 or
# so in the whole run), so a snapshot every switch
svc_spool record -q --snap-period 1 -o snap.trace
ok "record --snap-period 1: exit 0, the client got unbound's answers" svc_same || show_run
grep -v '^spool' run.err >snaprec.prog
"$SPOOL" info snap.trace >sinfo.txt 2>&1
ev=$(awk '/^snapshots:/ {on = 1; next} on && $1 ~ /^[0-9]+$/ {e = $2} END {print e}' sinfo.txt)
if [ -z "$ev" ]; then
	skip 3 "no snapshot taken (its switches all came at blocking calls): $(grep -A 3 '^snapshots' sinfo.txt)"
else
	diag "snapshot at schedule event $ev"
	spool_run replay -o g.trace --goto "$ev" snap.trace
	ok "replay --goto $ev: exit 0, started from the snapshot" \
		bash -c "[ $RC = 0 ] && grep -q '^spool: started from snapshot [0-9]* at schedule event $ev' run.err" || show_run
	grep -v '^spool' run.err >goto.prog
	ok "replay --goto: unbound's log from there on is the recording's tail" \
		bash -c "[ -s goto.prog ] && tail -n $(wc -l <goto.prog) snaprec.prog | cmp -s - goto.prog" ||
		diag "$(diff goto.prog snaprec.prog)"
	spool_run replay -o g1.trace --goto 1 snap.trace
	ok "replay --goto 1 (before the first snapshot): from the start, said, the whole log" \
		bash -c "[ $RC = 0 ] && grep -q 'replaying from the start' run.err &&
			grep -v '^spool' run.err | cmp -s - snaprec.prog" || show_run
fi

# --- attach: spool probe -p on an unbound started without spool
"${UB[@]}" 2>att.err &
upid=$!
svc_up att.err
timeout -k 10 "$T_TIMEOUT" "$SPOOL" probe -p "$upid" -d 4s -o at.trace -e 'func:libc.so*:sendto' \
	-e 'func:libc.so*:recvfrom' >at.out 2>at.err &
sp=$!
for i in $(seq 100); do grep -q 'probes placed' at.err && break; sleep 0.1; done
"$REAL_PY" q.py "$PORT" >client.out 2>&1
wait "$sp"
RC=$?
check_sanitizer at.err "spool probe -p (unbound)"
ok "probe -p: attached, detached after 4 s, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'attached to pid $upid' at.err && grep -q 'detached, its code restored' at.err" ||
	diag "$(cat at.err)"
"$SPOOL" report --functions --json at.trace >at.json 2>/dev/null
sends=$(json at.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'sendto')")
num_cmp "${sends:-0}" -ge 4 "probe -p: the 4 replies were seen (sendto: ${sends:-?} calls)"
"$REAL_PY" q.py "$PORT" >client2.out 2>&1
kill -TERM "$upid"
wait "$upid"
rc=$?
ok "probe -p: unbound answered while probed and after, and exits 0 on SIGTERM" \
	bash -c "[ $rc = 0 ] && cmp -s client.out native.client && cmp -s client2.out native.client"
done_testing
