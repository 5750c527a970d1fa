#!/bin/bash
# SPDX-License-Identifier: MIT
# 120-sock-self-replay.t - a program that is its own server and client
# (rr_sockself self): sysinfo (a server's clock of seconds: lighttpd's),
# socket, setsockopt, bind to port 0, listen,
# getsockname (the port the kernel chose, printed), a non-blocking connect
# (EINPROGRESS, poll, SO_ERROR through getsockopt), accept4 with the peer's
# address, a request, its answer and a shutdown. Recorded in serial and in
# sync mode, each replayed 3 times while another process holds the recorded
# port: the replay prints the recorded port and the same lines, because it
# binds, connects and accepts nothing. Under strace, the replay makes no
# AF_INET socket and connects nowhere (doc/record.md, Sockets). The same
# calls made through syscall() (rr_sockself raw) are recorded too. Four
# threads making and closing sockets at once (rr_sockself threads): serial
# replays give the recorded output; a sync replay, whose threads' opens and
# closes are not ordered, gives it too or stops and says which descriptor
# was in use: it never runs on with another descriptor table.
. "$(dirname "$0")/lib.sh"

plan 16

PY=/usr/bin/python3
for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- "$PROGS/rr_sockself" self
	cp run.out "rec.$mode.out"
	is_rc 0 "$mode: the recorded program ends well"
	port=$(sed -n 's/^listening on port \([0-9]*\) .*/\1/p' "rec.$mode.out")
	like "$(cat "rec.$mode.out")" 'SO_ERROR 0.*' "$mode: it connected to itself" ||
		diag "$(cat "rec.$mode.out")"

	# Someone else takes the recorded port: a replay that bound it would fail.
	occ=
	# (the last mode's file says "ready" until the new holder's shell
	# truncates it, which may come after wait_ready has read it)
	rm -f occ.out
	if [ -x "$PY" ] && [ -n "$port" ]; then
		"$PY" -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("ready", flush=True); time.sleep(120)' "$port" >occ.out 2>&1 &
		occ=$!
		wait_ready occ.out
		like "$(cat occ.out)" '^ready' "$mode: another process holds the recorded port $port"
	else
		skip 1 "python3 is not installed (it holds the port)"
	fi
	replays_same 3 0 "rec.$mode.out" -o rp.trace "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 print the recorded port and lines (port taken by another)"
	[ -n "$occ" ] && kill "$occ" 2>/dev/null
	wait 2>/dev/null

	"$SPOOL" replay --dump-schedule "$mode.trace" >sched.txt 2>/dev/null
	calls=$(awk '$1 == "input" { for (i = 1; i < NF; i++) if ($i == "call") print $(i + 1) }' sched.txt |
		sort -un | tr '\n' ' ')
	like " $calls" ' 8 .* 24 25 31 33 34 35 36 37 38 ' \
		"$mode: the recording has accept, getpeername, getsockname, socket, connect, bind, listen, shutdown, setsockopt, getsockopt"
done

# Threads: the descriptors of each socket() are the recorded ones, or the
# replay stops.
for mode in serial sync; do
	spool_run record --mode "$mode" -o "thr.$mode.trace" -- "$PROGS/rr_sockself" threads
	cp run.out "thr.$mode.out"
	same=0 refused=0
	for i in 1 2 3; do
		spool_run replay -o rp.trace "thr.$mode.trace"
		if [ "$RC" = 0 ] && cmp -s run.out "thr.$mode.out"; then
			same=$((same + 1))
		elif [ "$RC" != 0 ] && grep -q 'is in use in the replay' run.err; then
			refused=$((refused + 1))
		else
			show_run
		fi
	done
	if [ "$mode" = serial ]; then
		is "$(cat thr.serial.out):$same" "2400 descriptors existed:3" \
			"threads, serial: 3 replays of 3 give the recorded descriptors"
	else
		is "$(cat thr.sync.out):$((same + refused))" "2400 descriptors existed:3" \
			"threads, sync: 3 replays of 3 give the recorded output or stop on a descriptor in use ($same same, $refused stopped)"
	fi
done

# (LeakSanitizer cannot run under ptrace: no leak check in the ASan pass there.)
# Through syscall(): recorded like the named calls, and record says so.
spool_run record -o raw.trace -- "$PROGS/rr_sockself" raw
cp run.out raw.out
like "$RC $ERR" '^0 .*through syscall\(\) \(socket,bind,listen,getsockname' \
	"socket calls made through syscall() are recorded (record names them)"
port=$(sed -n 's/.* on port \([0-9]*\)$/\1/p' raw.out)
occ=
if [ -x "$PY" ] && [ -n "$port" ]; then
	"$PY" -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("ready", flush=True); time.sleep(120)' "$port" >occ.out 2>&1 &
	occ=$!
	wait_ready occ.out
fi
replays_same 2 0 raw.out -o rp.trace raw.trace
is "$SAME" 2 "2 replays of 2 print the recorded port (held by another process when python3 is there)"
[ -n "$occ" ] && kill "$occ" 2>/dev/null
wait 2>/dev/null

if command -v strace >/dev/null; then
	ASAN_OPTIONS=detect_leaks=0 timeout -k 10 "$T_TIMEOUT" strace -f -qq -e trace=network -o st.txt \
		"$SPOOL" replay -o rp.trace serial.trace >st.out 2>st.err
	RC=$?
	is_rc 0 "the replay under strace ends well"
	net=$(grep -E 'AF_INET|AF_INET6|AF_NETLINK|(connect|bind|listen|accept4?)\(' st.txt)
	is "$net" "" "the replay makes no network socket and binds, connects, accepts nothing"
else
	skip 2 "strace is not installed"
fi
done_testing
