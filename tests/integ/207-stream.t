#!/bin/bash
# SPDX-License-Identifier: MIT
# 207-stream.t - spool locks|record|probe --stream HOST:PORT and spool receive:
# the trace reaches the host while the program still runs, the host's copy
# is the whole trace (its report, a replay of the recording), the board
# keeps nothing; a cut connection is never silent on either side (the board
# keeps its trace and exits 4, the host's copy is marked and every report
# says it is incomplete); the receiver takes the stream as hostile input
# (names out of its directory, oversized frames: refused, nothing written
# outside); no receiver: the command stops before running the program.
. "$(dirname "$0")/lib.sh"

plan 29

# start_receiver DIR: spool receive in the background on a free port of
# 127.0.0.1 into DIR; sets RPID and PORT.
start_receiver() {
	rm -f recv.err
	"$SPOOL" receive --port 0 --bind 127.0.0.1 -o "$1" >recv.out 2>recv.err &
	RPID=$!
	wait_for 'receiving on' recv.err 15
	PORT="$(sed -n 's/.*receiving on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' recv.err)"
}

# --- a lock profile streamed while the program runs ---
start_receiver host.trace
[ -n "$PORT" ] || diag "no port: $(cat recv.err)"
"$SPOOL" locks --stream "127.0.0.1:$PORT" -o board.trace -- \
	sh -c "touch started; while [ ! -e go ]; do sleep 0.05; done; exec $PROGS/lockcount 2 1000" \
	>send.out 2>send.err &
SPID=$!
for ((i = 0; i < 600; i++)); do [ -e started ] && break; sleep 0.05; done
arrived=0
for ((i = 0; i < 300; i++)); do
	if ls host.trace.writing.*/.spool/proc/*.maps >/dev/null 2>&1; then
		arrived=1
		break
	fi
	sleep 0.05
done
is "$arrived" 1 "the host has the trace's first files while the program still runs"
touch go
wait "$SPID"
RC=$? is_rc 0 "spool locks --stream exits 0"
like "$(cat send.err)" 'bytes of trace sent to 127\.0\.0\.1' "  it says what it sent"
ok "  the board keeps nothing (its local copy is removed)" test ! -e board.trace
wait "$RPID"
RC=$? is_rc 0 "spool receive exits 0"
like "$(cat recv.err)" 'received [0-9]+ bytes in [0-9]+ files' "  it says what it received"
spool_run info host.trace
is_rc 0 "the host's copy is whole (spool info exits 0)"
like "$OUT" 'writer: finished' "  its writer finished"
report_json host.trace
is "$(lock_stat report.json shared_lock acquisitions)" 2000 "  the report counts the program's 2000 acquisitions"

# --- a recording streamed, replayed on the host ---
start_receiver host.rec
spool_run record --stream "127.0.0.1:$PORT" -o board.rec -- "$PROGS/rr_bank" 3 300
is_rc 0 "spool record --stream exits 0"
rec_out="$OUT"
wait "$RPID"
RC=$? is_rc 0 "  spool receive exits 0"
spool_run replay -q -o rep.trace host.rec
if [ "$RC" = 0 ] && [ -n "$rec_out" ] && [ "$OUT" = "$rec_out" ]; then
	pass "the received recording replays on the host, printing what the run printed"
else
	fail "the received recording replays on the host, printing what the run printed"
	show_run
fi

# --- a probe trace streamed ---
start_receiver host.probe
spool_run probe -q -e 'func:worker' --stream "127.0.0.1:$PORT" -o board.probe -- "$PROGS/lockcount" 2 100
is_rc 0 "spool probe --stream exits 0"
wait "$RPID"
RC=$? is_rc 0 "  spool receive exits 0"
spool_run report --functions --json host.probe
like "$OUT" '"name":"worker"[^}]*"calls":2,' "  the host reports the probed function's 2 calls"

# --- the receiver goes away mid-stream: the board keeps its trace ---
python3 - >fake.port 2>fake.err <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
c.recv(100)
c.close()
PY
FPID=$!
wait_for . fake.port 15
spool_run locks --stream "127.0.0.1:$(cat fake.port)" -o kept.trace -- "$PROGS/lockcount" 2 2000
wait "$FPID"
is_rc 4 "a cut connection: spool locks --stream exits 4"
like "$ERR" 'connection was cut.*kept here' "  it says the connection was cut and the trace is kept"
spool_run info kept.trace
is_rc 0 "  the board's trace is kept, whole"

# --- the board goes away mid-stream: the host's copy says so ---
# (a fake board sends every file of the trace kept above, but only the
# first half of its largest stream file, then hangs up)
start_receiver cut.trace
python3 - "$PORT" kept.trace <<'PY'
import os, socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
def frame(t, path=b"", off=0, data=b""):
    s.sendall(struct.pack("<IIQQ", t, len(path), off, len(data)) + path + data)
s.sendall(b"SPOOLST1")
frame(1)
files = []
for d, _, names in os.walk(sys.argv[2]):
    for n in names:
        p = os.path.join(d, n)
        files.append((os.path.getsize(p), os.path.relpath(p, sys.argv[2])))
files.sort()
for i, (size, rel) in enumerate(files):
    data = open(os.path.join(sys.argv[2], rel), "rb").read()
    if i == len(files) - 1:
        data = data[: len(data) // 2]
    frame(2, rel.encode(), 0, data)
s.close()
PY
wait "$RPID"
RC=$? is_rc 4 "a stream cut before its end: spool receive exits 4"
spool_run info cut.trace
num_cmp "$RC" -ne 0 "  spool info on the copy exits non-zero (incomplete, and damaged where it was cut)"
like "$OUT" 'stream from the board was cut' "  and says the stream was cut"
spool_run report --locks cut.trace
like "$ERR" 'stream from the board was cut' "  so does spool report"

# --- spool receive stopped (SIGTERM) while a board is still sending ---
start_receiver stopped.trace
python3 - "$PORT" kept.trace <<'PY' &
import os, socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
def frame(t, path=b"", off=0, data=b""):
    s.sendall(struct.pack("<IIQQ", t, len(path), off, len(data)) + path + data)
s.sendall(b"SPOOLST1")
frame(1)
frame(2, b"metadata", 0, open(os.path.join(sys.argv[2], "metadata"), "rb").read())
open("sent", "w").close()
time.sleep(30)
PY
BPID=$!
for ((i = 0; i < 300; i++)); do [ -e sent ] && break; sleep 0.05; done
sleep 0.2
kill -TERM "$RPID"
wait "$RPID"
RC=$? is_rc 4 "spool receive stopped by SIGTERM mid-stream exits 4"
like "$(cat stopped.trace/.spool/stream 2>/dev/null)" 'cut=1' "  what arrived is kept at its name, marked cut"
kill "$BPID" 2>/dev/null
wait "$BPID" 2>/dev/null

# --- hostile streams: names out of the directory, oversized frames ---
hostile() {
	start_receiver "$1"
	python3 - "$PORT" "$2" "$3" <<'PY'
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
path = sys.argv[2].encode()
s.sendall(b"SPOOLST1" + struct.pack("<IIQQ", 1, 0, 0, 0))
s.sendall(struct.pack("<IIQQ", 2, len(path), 0, int(sys.argv[3])) + path + b"x" * min(int(sys.argv[3]), 4))
try:
    s.recv(8)
except OSError:
    pass
s.close()
PY
	wait "$RPID"
	RC=$?
}
mkdir -p sub
hostile h1.trace "../escape" 4
is_rc 4 "a name with '..' ends the stream (exit 4)"
hostile h2.trace "/tmp/escape-$$" 4
ok "  nothing was written outside the directory ('..', an absolute name)" \
	test ! -e escape -a ! -e "/tmp/escape-$$"
hostile h3.trace "metadata" $((1 << 40))
like "$(cat recv.err)" 'frame too large' "an oversized frame is refused before it is read"

# --- no receiver: nothing runs ---
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
spool_run locks --stream "127.0.0.1:$port" -o none.trace -- "$PROGS/lockcount" 2 10
is_rc 2 "no receiver: spool locks --stream is a usage error"
unlike "$OUT" 'total=' "  and the program was not run"

done_testing
