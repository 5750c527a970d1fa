#!/bin/bash
# SPDX-License-Identifier: MIT
# 144-dig-all.t - Debian's dig (bind9-dnsutils 9.18, stripped: libisc's
# network manager runs a libuv loop per CPU in threads isc-net-NNNN; OpenSSL
# is seeded in libisc's constructor, before spool's agent starts: it reads
# openssl.cnf, notes its pid and the time, takes entropy with getentropy)
# asking a small DNS responder on 127.0.0.1 (Python: A 10.0.0.N for nN.test,
# NXDOMAIN otherwise) 3 questions, under every command as a new user would
# try it: spool locks, spool probe (func: on libuv, var: on libc's recvmsg
# by its DWARF, func:* on the executable), spool path, spool record and
# spool replay in serial and sync mode (3 replays each, the responder gone:
# the answers, their random ids and times are the recording's), spool
# record --snap-period and spool replay --goto.
. "$(dirname "$0")/lib.sh"
need_progs dig
plan 17

cat >dns.py <<'EOF'
# A 10.0.0.N for nN.test, NXDOMAIN otherwise; prints its port
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', 0))
print(s.getsockname()[1], flush=True)
while True:
    q, addr = s.recvfrom(4096)
    qid = struct.unpack('>H', q[:2])[0]
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode()); i += 1 + q[i]
    ok = len(labels) == 2 and labels[1] == 'test' and labels[0][1:].isdigit()
    hdr = struct.pack('>HHHHHH', qid, 0x8180 if ok else 0x8183, 1, 1 if ok else 0, 0, 0)
    ans = struct.pack('>HHHIH', 0xc00c, 1, 1, 60, 4) + bytes([10, 0, 0, int(labels[0][1:]) % 256]) if ok else b''
    s.sendto(hdr + q[12:i + 5] + ans, addr)
EOF
"$REAL_PY" dns.py >port.txt &
dpid=$!
trap 'kill $dpid 2>/dev/null' EXIT
for i in $(seq 100); do [ -s port.txt ] && break; sleep 0.1; done
PORT=$(cat port.txt)
DIG=(dig @127.0.0.1 -p "$PORT" n5.test n7.test x.test +noall +answer +comments)
# what does not vary from run to run: the ids, the times and sizes do
answers() { grep -v 'id: \|Query time\|WHEN\|MSG SIZE' "$1"; }

"${DIG[@]}" >native.out 2>&1
ok "dig alone: n5 and n7 answered (10.0.0.5, 10.0.0.7), x.test NXDOMAIN" \
	bash -c "grep -qE '^n5.test.+A.+10.0.0.5$' native.out && grep -qE '^n7.test.+A.+10.0.0.7$' native.out &&
		grep -q 'status: NXDOMAIN' native.out" || diag "$(cat native.out)"
answers native.out >native.ans

# --- locks
spool_run locks -o lk.trace -- "${DIG[@]}"
answers run.out >lk.ans
ok "locks: exit 0, dig's answers" bash -c "[ $RC = 0 ] && cmp -s lk.ans native.ans" || show_run
report_json lk.trace
names=$(json report.json "' '.join(sorted(set(t['name'] for t in d['threads'])))")
diag "locks: threads $names"
# (their names: dig's main thread sets them with pthread_setname_np after
# the thread started, and spool takes a thread's name when it starts: a
# race, "dig" or "isc-net-NNNN")
is "$(json report.json "len(d['threads'])")" 3 "locks: dig's main thread and libisc's 2 loop threads"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
spool_run probe -o pv.trace -e 'func:libuv.so*:uv_run' -e 'var:auto:fd@libc.so*:recvmsg:entry' -- "${DIG[@]}"
answers run.out >pv.ans
ok "probe func: on libuv, var: on libc: exit 0, dig's answers" \
	bash -c "[ $RC = 0 ] && cmp -s pv.ans native.ans" || show_run
"$SPOOL" report --functions --json pv.trace >pv.json 2>/dev/null
num_cmp "$(json pv.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'uv_run')")" -ge 2 \
	"probe: uv_run, a loop per isc-net thread"
"$SPOOL" report --vars --json pv.trace >pvv.json 2>/dev/null
num_cmp "$(json pvv.json "len([p for x in d['vars'] if x['name'] == 'fd' for p in x['values']])")" -ge 3 \
	"probe: recvmsg's fd (libc's DWARF) at each of the 3 answers"
spool_run probe -o pf.trace -e 'func:*' -- "${DIG[@]}"
"$SPOOL" report --functions --json pf.trace >pf.json 2>/dev/null
is "$RC $(json pf.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'main')")" "0 1" \
	"probe func:* on the stripped executable: exit 0, main called once"

# --- path
spool_run path -o pa.trace -w path.txt -- "${DIG[@]}"
nthr=$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)
ok "path: exit 0, function entries of the main thread and a loop thread" \
	bash -c "[ $RC = 0 ] && [ $nthr -ge 2 ]" || show_run

# --- record and replay, the responder gone for the replays: every early
# input (openssl.cnf read past what the recording keeps, getpid, time,
# getentropy) given back in place, or OpenSSL reseeded in the replay
rr_corpus dig serial -- "${DIG[@]}"
# sync: libisc's threads hand work over through atomics, which sync mode
# does not order (a replay may stop, saying so)
rr_corpus dig sync --may-diverge "libisc hands work over through atomics" -- "${DIG[@]}"
answers "$T_DIR/corpus/dig.serial/rec.out" >rec.ans
ok "serial: the recording's answers are dig's" cmp -s rec.ans native.ans

# --- snapshots and --goto: dig's threads park together only while it
# ends (libisc's destructor stops them): the snapshots are taken there,
# after the agent's own exit wait, and must not outlive the program
spool_run record --snap-period 1 -o snap.trace -- "${DIG[@]}"
cp run.out snap.out
ok "record --snap-period 1: exit 0 (no copy left running, the trace complete)" \
	bash -c "[ $RC = 0 ] && ! grep -q 'still running' run.err" || show_run
"$SPOOL" info snap.trace >sinfo.txt 2>&1
ok "info: the snapshot trace is complete" bash -c "grep -qx 'writer: finished' sinfo.txt && ! grep -q '^missing' sinfo.txt" ||
	diag "$(cat sinfo.txt)"
ev=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' sinfo.txt | tail -n 1)
if [ -z "$ev" ]; then
	skip 1 "no snapshot taken: $(grep -A 3 '^snapshots' sinfo.txt)"
else
	spool_run replay -q -o g.trace --goto "$ev" snap.trace
	ok "replay --goto $ev: exit 0, the output's tail" \
		bash -c "[ $RC = 0 ] && [ -s run.out ] && tail -c \$(wc -c <run.out) snap.out | cmp -s - run.out" || show_run
fi
done_testing
