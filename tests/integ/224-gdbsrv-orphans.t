#!/bin/bash
# SPDX-License-Identifier: MIT
# 224-gdbsrv-orphans.t - nothing of a `spool replay --gdbserver` session
# outlives it (doc/record.md, "When gdb or spool goes"): gdb killed with
# SIGKILL in the middle of a reverse-continue (spool busy in its search, not
# reading gdb), gdb and then spool killed as a test timeout does, spool
# alone killed with SIGKILL, SIGTERM or SIGHUP, gdb over TCP killed, ^C at a
# listening spool, and a front end that closes its pipes. Each session keeps
# checkpoint copies (SPOOL_GDBSRV_CHECKPOINT_MS=0: one at every stop, many
# processes). Left over is looked for three ways: by the program's name (a
# copy of the program under a name of this test's), by spool's session id
# (spool is a session leader: the replays and copies are in its session),
# and by this test's directory in /proc/*/cmdline (the background sessions,
# spool's janitor). spool's private directories must be gone too. The time
# each took to vanish is printed (a figure: not asserted).
. "$(dirname "$0")/lib.sh"

if ! command -v gdb >/dev/null 2>&1; then
	echo "1..0 # SKIP gdb is not installed"
	exit 0
fi

plan 12

PROG="$T_DIR/orph224prog"
cp "$PROGS/rr_race_counter-finst" "$PROG"
export TMPDIR="$T_DIR/tmp"
mkdir -p "$TMPDIR"
TR="$T_DIR/big"
spool_run record -q --chaos --seed 7 -o "$TR" -- "$PROG" 2 100000
ok "a recording of the racy counter, 2 threads x 100,000" test -f "$TR/metadata"
SRC="$REPO/tests/progs/rr_race_counter-finst.c"
END=$(grep -n 'printf("total' "$SRC" | cut -d: -f1)

# what is left of the session: pids, one a line (gdb itself and the
# timeouts this test runs things under are not spool's)
GDB=0
SPID=0
SSID=0
left() {
	local p
	{
		pgrep -f "$T_DIR/"
		[ "$SSID" -gt 0 ] && pgrep -s "$SSID"
	} | sort -u | while read -r p; do
		case "$(cat "/proc/$p/comm" 2>/dev/null)" in
		gdb | timeout | "") ;;
		*) echo "$p" ;;
		esac
	done
}
# spool's pid and session, once it runs ($1: pgrep pattern)
find_spool() {
	SPID=$(pgrep -f "$1" | head -1)
	SPID=${SPID:-0}
	SSID=$(ps -o sid= -p "$SPID" 2>/dev/null | tr -d ' ')
	SSID=${SSID:-0}
}
# wait_gone: until nothing is left (20 s at most: a search of this
# recording runs for a minute or more; before, spool ran it to its end
# after gdb had gone); GONE_MS, LEFT
wait_gone() {
	local t0
	t0=$(date +%s%N)
	while true; do
		LEFT=$(left)
		GONE_MS=$((($(date +%s%N) - t0) / 1000000))
		[ -z "$LEFT" ] || [ "$GONE_MS" -ge 20000 ] && break
		sleep 0.05
	done
}
show_left() {
	[ -n "$LEFT" ] && diag "left:" "$(echo "$LEFT" | xargs -r ps -o pid,ppid,pgid,sid,stat,args -p)"
}
# gdb, in a session of its own, at the end of the run, then in the middle
# of a reverse-continue over 200,000 watchpoint hits
start_gdb() {
	GDB=0
	SPID=0
	SSID=0
	(SPOOL_GDBSRV_CHECKPOINT_MS=0 setsid timeout -k 5 300 gdb -q -batch -nx \
		-ex "target remote | $SPOOL replay --gdbserver - $TR" \
		-ex "break rr_race_counter-finst.c:$END" -ex continue -ex delete -ex 'watch counter' \
		-ex 'python print("REVERSE", flush=True)' -ex reverse-continue \
		-ex 'python import time; time.sleep(300)' "$PROG" >"gdb.$1" 2>&1 &)
	wait_for REVERSE "gdb.$1" 120 || diag "gdb did not get to its reverse-continue: $(tail -5 "gdb.$1")"
	sleep 1
	GDB=$(pgrep -f "^gdb -q -batch -nx -ex target remote \| $SPOOL replay --gdbserver - $TR" | head -1)
	find_spool "^$SPOOL replay --gdbserver - $TR"
	COPIES=$(pgrep -f "^$PROG" | wc -l)
	GDB=${GDB:-0}
}
# case NAME WHAT-IS-KILLED: kill, wait, check
check_gone() {
	wait_gone
	if [ -z "$LEFT" ]; then
		pass "$1: nothing left, after $GONE_MS ms (there were $COPIES processes of the program)"
	else
		fail "$1: nothing left ($(echo "$LEFT" | wc -l) processes after $GONE_MS ms)"
		show_left
		# (this test's own, so that the next case starts clean)
		echo "$LEFT" | xargs -r kill -9 2>/dev/null
	fi
	[ "$GDB" -gt 0 ] && kill -9 "$GDB" 2>/dev/null
	echo "$1 $GONE_MS" >>figures
}

start_gdb a
kill -9 "$GDB"
check_gone "gdb killed (SIGKILL) while spool searches backwards"
like "$(cat gdb.a)" 'Hardware watchpoint 2: counter' "  gdb had set its watchpoint (spool $SPID, $COPIES copies)"

start_gdb b
kill -9 "$GDB"
kill -9 "$SPID"
check_gone "gdb, then spool killed (SIGKILL, as a test timeout does)"

start_gdb c
kill -9 "$SPID"
check_gone "spool killed (SIGKILL), gdb left alone"

start_gdb d
kill -TERM "$SPID"
check_gone "spool killed by SIGTERM"

start_gdb e
kill -HUP "$SPID"
check_gone "spool killed by SIGHUP"

# gdb over TCP: spool listens (port 0: any free one), in a session of its own
tcp() {
	GDB=0
	SPID=0
	SSID=0
	(SPOOL_GDBSRV_CHECKPOINT_MS=0 setsid timeout -k 5 300 "$SPOOL" replay --gdbserver 0 "$TR" \
		>"srv.$1" 2>&1 &)
	wait_for 'listening on' "srv.$1" 30
	find_spool "^$SPOOL replay --gdbserver 0 $TR"
	port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "srv.$1")
	(setsid timeout -k 5 300 gdb -q -batch -nx -ex "target extended-remote 127.0.0.1:$port" \
		-ex "break rr_race_counter-finst.c:$END" -ex continue -ex delete -ex 'watch counter' \
		-ex 'python print("REVERSE", flush=True)' -ex reverse-continue \
		-ex 'python import time; time.sleep(300)' "$PROG" >"gdb.$1" 2>&1 &)
	wait_for REVERSE "gdb.$1" 120 || diag "gdb did not get to its reverse-continue: $(tail -5 "gdb.$1")"
	sleep 1
	GDB=$(pgrep -f "^gdb -q -batch -nx -ex target extended-remote 127.0.0.1:$port" | head -1)
	GDB=${GDB:-0}
	COPIES=$(pgrep -f "^$PROG" | wc -l)
}
tcp f
kill -9 "$GDB"
check_gone "gdb over TCP killed (SIGKILL): the connection closed"
tcp g
kill -INT "$SPID"
check_gone "^C (SIGINT) at spool listening on a port"

# a front end that closes spool's stdin and stdout while spool searches
off=$(gdb -batch -ex "info line rr_race_counter-finst.c:$END" "$PROG" 2>/dev/null |
	sed -n 's/.*starts at address 0x\([0-9a-f]*\).*/\1/p')
var=$(gdb -batch -ex 'info address counter' "$PROG" 2>/dev/null |
	sed -n 's/.*at address 0x\([0-9a-f]*\).*/\1/p')
base=0x555555554000 # the layout without randomization (as gdb gives its inferiors)
GDB=0
SPID=0
SSID=0
SPOOL_GDBSRV_CHECKPOINT_MS=0 timeout -k 5 120 python3 "$REPO/tests/integ/gdbsrv_close.py" "$SPOOL" \
	"$TR" "$(printf %x $((base + 0x$off)))" "$(printf %x $((base + 0x$var)))" 2 >close.out 2>&1
SPID=$(head -1 close.out)
SSID=$SPID # (the client starts it in a session of its own)
COPIES="?"
like "$(cat close.out)" 'stop T05' "a protocol client on spool's pipes: stopped at the breakpoint"
check_gone "the client closed spool's stdin and stdout while spool searched"

# spool's private directories (the replays' traces) removed after it
for ((i = 0; i < 100; i++)); do
	[ -z "$(ls "$TMPDIR")" ] && break
	sleep 0.1
done
is "$(ls "$TMPDIR")" "" "no private directory of spool's left in \$TMPDIR"
diag "time until nothing was left (ms): $(tr '\n' ' ' <figures)"
done_testing
