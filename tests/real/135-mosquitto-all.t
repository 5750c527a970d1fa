#!/bin/bash
# SPDX-License-Identifier: MIT
# 135-mosquitto-all.t - Debian's MQTT broker and client under every
# command, as a new user would try them. mosquitto_pub -l (publishes each
# line of its stdin at QoS 1; libmosquitto's loop thread reads the acks
# while the main thread publishes, over 9 mutexes; the executable and
# libmosquitto are stripped) talks to a mosquitto broker on 127.0.0.1 that
# a mosquitto_sub checks: spool locks, spool probe (func:* on its exported
# names, func: on libmosquitto, args: by the ABI, branch:), spool path,
# spool record and spool replay in serial and in sync mode (3 replays each,
# with the broker gone), spool record --snap-period and spool replay
# --goto, spool info and spool report, spool probe -p on the broker. The broker (one thread, epoll) is
# recorded in both modes while the clients use it, and replayed alone.
# mosquitto_pub's main thread polls a status its callbacks set in the loop
# thread without a lock: sync mode cannot order that, so its sync replays
# must be identical or stop at a reported divergence.
. "$(dirname "$0")/lib.sh"
need_progs mosquitto mosquitto_pub mosquitto_sub
plan 39

PORT=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\nlog_type all\nlog_timestamp false\n' \
	"$PORT" >mq.conf
seq 1 20 | sed 's/^/line /' >lines.txt
PUB=(mosquitto_pub -h 127.0.0.1 -p "$PORT" -t t/x -q 1 -l -d)

# broker_up: a mosquitto of our own on $PORT (pid in $BROKER)
broker_up() {
	mosquitto -c "$T_DIR/mq.conf" </dev/null >/dev/null 2>>"$T_DIR/broker.err" &
	BROKER=$!
	wait_port "$PORT"
}
broker_down() { [ -z "$BROKER" ] || { kill -TERM "$BROKER" 2>/dev/null; wait "$BROKER" 2>/dev/null; }; BROKER=""; }
BROKER=""
trap 'broker_down; _t_cleanup' EXIT
# subscribed LOG N: until the broker's log LOG has more than N subscriptions
subscribed() {
	local i
	for i in $(seq 200); do
		[ "$(grep -c 'Received SUBSCRIBE' "$1" 2>/dev/null)" -gt "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
# sub_start N: a subscriber for N messages into sub.out (pid in $SUB),
# subscribed when it returns
sub_start() {
	local n
	n=$(grep -c 'Received SUBSCRIBE' "$T_DIR/broker.err" 2>/dev/null)
	mosquitto_sub -h 127.0.0.1 -p "$PORT" -t 't/#' -C "$1" -W 60 >sub.out &
	SUB=$!
	subscribed "$T_DIR/broker.err" "${n:-0}"
}
# sub_got: the subscriber got the 20 lines, in order
sub_got() { wait "$SUB" && cmp -s sub.out lines.txt; }
# pub_ok: spool's status 0, mosquitto_pub's own output, the lines got there
pub_ok() { [ "$RC" = 0 ] && cmp -s run.out native.out && sub_got; }

broker_up
sub_start 20
"${PUB[@]}" <lines.txt >native.out 2>&1
RC=$?
cp native.out run.out
ok "mosquitto_pub alone: exit 0, the subscriber got the 20 lines" pub_ok
RUN_STDIN="$T_DIR/lines.txt"

# --- locks
sub_start 20
spool_run locks -o lk.trace -- "${PUB[@]}"
ok "locks: exit 0, mosquitto_pub's own output, the subscriber got the lines" \
	pub_ok || show_run
report_json lk.trace
mutexes=$(json report.json "len([l for l in d['locks'] if l['type'] == 'mutex' and l['write']['acquisitions'] > 0])")
diag "locks: ${mutexes:-?} mutexes taken"
num_cmp "${mutexes:-0}" -ge 5 "locks: libmosquitto's mutexes are listed with their acquisitions"
is "$(json report.json "len(d['threads'])")" 2 "locks: the main thread and the loop thread"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
sub_start 20
spool_run probe -o fa.trace -e 'func:*' -- "${PUB[@]}"
ok "probe func:* (the stripped executable's exported names): exit 0, its own output" \
	pub_ok || show_run
"$SPOOL" report --functions --json fa.trace >fa.json 2>/dev/null
is "$(json fa.json "sorted((f['name'], f['calls']) for f in d['functions'] if f['name'] in ('my_publish', 'my_publish_callback'))")" \
	"$(printf "('my_publish', 20)\n('my_publish_callback', 20)")" \
	"probe: my_publish and its callback, 20 calls each (a line each)"
ok "probe: the callback runs in another thread than my_publish" \
	test "$(json fa.json "len(set(t['tid'] for f in d['functions'] if f['name'] in ('my_publish', 'my_publish_callback') for t in f['threads']))")" = 2
# (the kernel jumps to _start: the word where its return address would be
# is argc, 10 here, shown as the caller "0xa" before)
is "$(json fa.json "[c['name'] for f in d['functions'] if f['name'] == '_start' for c in f['callers']]")" \
	"(no caller)" "probe: _start has no caller (not argc taken for a return address)"
sub_start 20
spool_run probe -o va.trace -e 'args:libmosquitto.so*:mosquitto_publish_v5:long,long,char*,int,long,int->int' \
	-e 'branch:my_publish' -- "${PUB[@]}"
ok "probe args: on libmosquitto and branch: on the executable: exit 0, its own output" \
	pub_ok || show_run
"$SPOOL" report --vars --json va.trace >va.json 2>/dev/null
is "$(json va.json "' '.join(p['value'] for x in d['vars'] if x['name'] == 'arg4' for p in x['values'])")" \
	"$(awk '{printf "%s%d", (NR > 1 ? " " : ""), length($0)}' lines.txt)" \
	"probe: mosquitto_publish_v5's payload length (4th argument, by the ABI), each line's"
is "$(json va.json "sorted(set(p['value'] for x in d['vars'] if x['name'] in ('arg6', 'return') for p in x['values']))")" \
	"$(printf '0\n1')" "probe: its QoS argument is 1, it returned 0 (success)"
taken=$("$SPOOL" report --coverage --json va.trace 2>/dev/null |
	"$REAL_PY" -c 'import json,sys; d=json.load(sys.stdin); print(sum(b["taken"] + b["not_taken"] for b in d["branches"]))')
num_cmp "${taken:-0}" -ge 20 "probe: my_publish's branches were counted (every call)"

# --- path
sub_start 20
spool_run path -o pa.trace -w path.txt -- "${PUB[@]}"
ok "path: exit 0, its own output" pub_ok || show_run
is "$(awk '$1 ~ /^[0-9]+$/ {split($3, t, "/"); print t[1]}' path.txt | sort -u | wc -l)" 2 \
	"path: function entries of both threads"
is "$(grep -c ' my_publish ' path.txt)" 20 "path: my_publish, once a line"
ok "path: my_publish's calls name the locks they took" grep -qE ' my_publish +lock:' path.txt

# --- attach: the broker started as root runs as user mosquitto (it drops
# root): the agent spool loads into it cannot open spool's shared memory by
# /proc/SPOOL/fd/N, and gets it over a Unix socket instead (doc/probe.md,
# attach mode). Attached while 20 lines are published: its epoll_wait calls
# are counted and its socket I/O (sys:io), and the broker goes on serving
# after the detach
if [ "$(id -u)" = 0 ] && [ "$(awk '/^Uid:/ {print $3}' "/proc/$BROKER/status")" != 0 ]; then
	timeout -k 10 120 "$SPOOL" probe -p "$BROKER" -d 4s -o at.trace -e sys:io \
		-e 'func:libc.so*:epoll_wait' >at.out 2>at.err &
	SP=$!
	wait_for 'attached to pid' at.err 60 || diag "no attach: $(tail -n 5 at.err)"
	sub_start 20
	"${PUB[@]}" <lines.txt >/dev/null 2>&1
	ok "probe -p, attached to the broker (another user): its subscriber got the lines" sub_got
	wait "$SP"
	RC=$?
	ok "probe -p on the broker (another user): exit 0" [ "$RC" = 0 ] || diag "$(tail -n 5 at.err)"
	calls=$("$SPOOL" report --functions --json at.trace 2>/dev/null |
		"$REAL_PY" -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["calls"] for f in d["functions"] if f["name"] == "epoll_wait"))')
	num_cmp "${calls:-0}" -gt 0 "probe -p: the broker's epoll_wait calls counted ($calls)"
	sock=$("$SPOOL" report --sys --json at.trace 2>/dev/null |
		"$REAL_PY" -c 'import json,sys; d=json.load(sys.stdin); print(sum(x["calls"] for t in d["threads"] for x in t["io"] if x["kind"] == "socket"))')
	num_cmp "${sock:-0}" -gt 0 "probe -p -e sys:io: the broker's socket I/O counted ($sock calls)"
	sub_start 20
	"${PUB[@]}" <lines.txt >/dev/null 2>&1
	ok "after the detach the broker goes on serving" sub_got
else
	skip 5 "the broker keeps spool's user (not root, or run as root)"
fi
broker_down

# --- record and replay mosquitto_pub: the broker runs while it is
# recorded, and is gone for the replays (the socket's data from the log)
broker_gone() {
	while kill -0 "$1" 2>/dev/null; do sleep 0.1; done
	broker_down
}
for mode in serial sync; do
	broker_up
	sub_start 20
	may=()
	[ "$mode" = sync ] && may=(--may-diverge "its main thread polls a status the loop thread sets without a lock")
	rr_corpus mosquitto_pub "$mode" --stdin "$T_DIR/lines.txt" --client broker_gone "${may[@]}" -- "${PUB[@]}"
	ok "$mode: the subscriber got the 20 lines while it was recorded" sub_got
done
tr="$T_DIR/corpus/mosquitto_pub.serial/rec.trace"
"$SPOOL" info "$tr" >info.txt 2>&1
ok "info on the serial recording: exit 0, 2 threads, nothing lost, the trace finished" \
	bash -c "[ $? = 0 ] && grep -qx 'threads=2' info.txt && grep -qx 'lost: 0 events' info.txt &&
		grep -qx 'writer: finished' info.txt" || diag "$(cat info.txt)"
like "$(cat info.txt)" '^recording: serial mode \(seed [0-9]+\); spool replay accepts it$' \
	"info: the recording's mode, and that spool replay accepts it"
"$SPOOL" report "$tr" >rep.txt 2>&1
ok "report on a recording: exit 0, says why it has no lock table" \
	bash -c "[ $? = 0 ] && grep -q 'locks: not recorded' rep.txt" || diag "$(cat rep.txt)"

# --- snapshots: mosquitto_pub's threads switch only where one blocks (its
# loop thread in select, a handful in the run). None was taken before a
# snapshot could hold a thread out in a blocking call (then spool says why,
# and --goto says so and replays from the start); now some are, and --goto
# replays the recording's output from one (tests/real/150: more of them)
broker_up
spool_run record --snap-period 1 -o snap.trace -- "${PUB[@]}"
broker_down
cp run.out snaprec.out
nsnap=$("$SPOOL" info snap.trace 2>/dev/null | sed -n 's/^snapshots: \([0-9]*\) in .*/\1/p')
diag "record --snap-period 1: ${nsnap:-0} snapshots" "$(grep '^spool: ' run.err)"
if [ -z "$nsnap" ]; then
	like "$ERR" 'no snapshot: none of the [0-9]+ switches came where one is tried' \
		"record --snap-period 1: no snapshot taken, and spool says why"
else
	skip 1 "$nsnap snapshots taken: no reason to give"
fi
spool_run replay -o g.trace --goto 3 snap.trace
if [ -z "$nsnap" ]; then
	ok "replay --goto 3 with no snapshot: exit 0, said, the whole output" \
		bash -c "[ $RC = 0 ] && grep -q 'replaying from the start' run.err && cmp -s run.out snaprec.out" || show_run
else
	ok "replay --goto 3: exit 0, the recording's output from the snapshot on" \
		bash -c "[ $RC = 0 ] && [ -s run.out ] && tail -c $(stat -c %s run.out) snaprec.out | cmp -s - run.out" || show_run
fi

# --- the broker, recorded while mosquitto_sub and mosquitto_pub use it
# (client ids fixed: the broker logs them), replayed with no client
mq_clients() {
	local i pid
	for i in $(seq 100); do grep -q 'running' "$T_DIR/corpus/mosquitto.$mode/rec.err" 2>/dev/null && break; sleep 0.1; done
	mosquitto_sub -h 127.0.0.1 -p "$PORT" -t 't/#' -C 20 -W 60 -i sub1 >"$T_DIR/bsub.$mode" &
	local s=$!
	subscribed "$T_DIR/corpus/mosquitto.$mode/rec.err" 0
	mosquitto_pub -h 127.0.0.1 -p "$PORT" -t t/x -q 1 -l -i pub1 <"$T_DIR/lines.txt"
	wait "$s"
	pid=$(prog_of "$1") && kill -TERM "$pid"
}
for mode in serial sync; do
	rr_corpus mosquitto "$mode" --client mq_clients -- mosquitto -c "$T_DIR/mq.conf"
	ok "broker $mode: the subscriber got the 20 lines while it was recorded" cmp -s "bsub.$mode" lines.txt
done
done_testing
