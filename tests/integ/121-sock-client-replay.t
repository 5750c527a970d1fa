#!/bin/bash
# SPDX-License-Identifier: MIT
# 121-sock-client-replay.t - a client replays with its server gone
# (rr_sockself client PORT against a small Python server on 127.0.0.1):
# recorded in serial and in sync mode, the server stopped, each recording
# replayed 3 times with the recorded output; then a different server on the
# same port, which answers something else: the replay still prints the
# recorded answer (it sent nothing and read nothing). A connection that was
# refused while recording is refused in the replay too, although a server
# listens on the port by then.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
	plan 1
	skip 1 "python3 is not installed (the server of the test)"
	done_testing
fi
plan 9

# serve PORT|0 WORD: a server that answers each connection with WORD and
# the line it read; prints "ready PORT".
serve() {
	"$PY" -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("ready", s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    line = c.recv(100)
    c.sendall(sys.argv[2].encode() + b" " + line)
    c.close()' "$1" "$2" >srv.out 2>&1 &
	SRV=$!
	wait_ready srv.out || diag "the server did not start: $(cat srv.out)"
	PORT=$(sed -n 's/^ready \([0-9]*\)$/\1/p' srv.out)
}

serve 0 recorded
for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- "$PROGS/rr_sockself" client "$PORT"
	cp run.out "rec.$mode.out"
	is "$RC:$(grep -c 'reply: recorded hello' run.out)" "0:1" "$mode: the recorded client got its answer" ||
		show_run
done
kill "$SRV"
wait "$SRV" 2>/dev/null

for mode in serial sync; do
	replays_same 3 0 "rec.$mode.out" -o rp.trace "$mode.trace"
	is "$SAME" 3 "$mode: 3 replays of 3 with the server gone print the recorded output"
done

serve "$PORT" other
replays_same 1 0 rec.serial.out -o rp.trace serial.trace
is "$SAME" 1 "with another server on the port, the replay prints the recorded answer"
kill "$SRV"
wait "$SRV" 2>/dev/null

# Refused: nothing listens on the port while recording.
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
spool_run record -o refused.trace -- "$PROGS/rr_sockself" client "$PORT"
cp run.out rec.refused.out
is "$RC:$OUT" "2:connect: Connection refused" "a refused connection is recorded (exit 2)"
serve "$PORT" other
replays_same 3 2 rec.refused.out -o rp.trace refused.trace
is "$SAME" 3 "3 replays of 3 are refused too, though a server listens now"
kill "$SRV"
wait "$SRV" 2>/dev/null
"$SPOOL" replay --dump-schedule serial.trace >sched.txt 2>/dev/null
num_cmp "$(grep -c '^input .* call 33 ' sched.txt)" -eq 1 "the recording has the connect"
num_cmp "$(grep -c '^input .* call 31 ' sched.txt)" -eq 1 "and the socket"
done_testing
