#!/bin/bash
# SPDX-License-Identifier: MIT
# 370-probe-attach-in-loader.t - spool probe -p on a program that is still
# in the dynamic loader: probe_attach run with LD_DEBUG=all and its stderr
# on a pipe of 4 KiB that nobody reads yet, so ld.so blocks in its own
# write before main (the shape of Debian's ffmpeg attached 0.1 s after its
# start, still relocating its 137 libraries). spool must not call the
# agent's dlopen there: it waits for the main thread to leave the loader,
# then attaches and probes; one that never leaves (5 s) is refused with
# nothing changed in it. Before, the dlopen ran in a libc not ready yet and
# faulted ("the call into pid N faulted", exit 1), and ffmpeg, whose fault
# came while it held gettext's lock, hung for good at its next
# bindtextdomain (tests/real/146-ffmpeg-threads-all.t).
. "$(dirname "$0")/lib.sh"

plan 7

P="$PROGS/probe_attach"

# loader_start SECONDS: probe_attach SECONDS with ld.so's debug output on a
# full pipe (fd 8 holds the pipe, unread), as $TPID; until it blocks there
loader_start() {
	rm -f ld.fifo
	mkfifo ld.fifo
	exec 8<>ld.fifo
	python3 -c 'import fcntl, os; fcntl.fcntl(os.open("ld.fifo", os.O_RDWR), 1031, 4096)'
	LD_DEBUG=all "$P" "$1" >prog.out 2>ld.fifo &
	TPID=$!
	for i in $(seq 100); do
		[ "$(cat "/proc/$TPID/wchan" 2>/dev/null)" = anon_pipe_write ] && break
		sleep 0.05
	done
}
# loader_drain: read the pipe from now on (as $DRAIN)
loader_drain() {
	cat <&8 >/dev/null &
	DRAIN=$!
}
loader_end() {
	wait "$TPID"
	TRC=$?
	kill "$DRAIN" 2>/dev/null
	wait "$DRAIN" 2>/dev/null
	exec 8<&-
}

# --- waits for the loader, then attaches
loader_start 3
is "$(cat "/proc/$TPID/wchan" 2>/dev/null)" anon_pipe_write "the program blocks in ld.so's write, before main"
SPOOL_DEBUG=1 timeout -k 10 "$T_TIMEOUT" "$SPOOL" probe -p "$TPID" -d 1s -o at.trace -e 'func:attach_work' \
	>at.out 2>at.err &
sp=$!
sleep 1
loader_drain
wait "$sp"
RC=$?
check_sanitizer at.err "spool probe -p (in the loader)"
ok "probe -p: waited for the loader, attached, detached, exit 0" \
	bash -c "[ $RC = 0 ] && grep -q 'in the dynamic loader, waiting for it to leave' at.err &&
		grep -q 'attached to pid $TPID' at.err && grep -q 'detached, its code restored' at.err" ||
	diag "$(grep -v debug: at.err | tail -n 20)"
calls=$("$SPOOL" report --functions --json at.trace 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["calls"] for f in d["functions"] if f["name"] == "attach_work"))')
num_cmp "${calls:-0}" -ge 100 "probe -p: attach_work's calls were counted (${calls:-?})"
loader_end
is "$TRC:$(tail -n 1 prog.out | sed 's/calls [0-9]*/calls N/')" "0:done calls N check ok" \
	"the program ran on and ended as its own"

# --- a program that stays in the loader: refused after 5 s, nothing changed
loader_start 2
timeout -k 10 "$T_TIMEOUT" "$SPOOL" probe -p "$TPID" -d 1s -o at2.trace -e 'func:attach_work' \
	>at2.out 2>at2.err
RC=$?
is "$RC" 1 "probe -p on a program in the loader for good: exit 1"
like "$(cat at2.err)" "cannot attach to pid $TPID: its main thread is still in the dynamic loader after 5 s \\(starting up, or in a dlopen\\); nothing was changed in it" \
	"... with the reason, and nothing called in it"
loader_drain
loader_end
is "$TRC:$(tail -n 1 prog.out | sed 's/calls [0-9]*/calls N/')" "0:done calls N check ok" \
	"... and the program runs on as its own once the loader goes on"
done_testing
