#!/bin/bash
# SPDX-License-Identifier: MIT
# 263-gdbsrv-sigint.t - a SIGINT at `spool replay --gdbserver -` while the
# replay runs stops it and gdb gets a stop reply for SIGINT, as rr does
# (and as gdb's own 0x03 does): the terminal's ^C reaches gdb's whole
# process group, spool too, and a gdb that does not turn it into an
# interrupt packet (or one whose packet is late) used to leave the replay
# running with spool ignoring the signal. While the replay is stopped a
# SIGINT is dropped (spool serving gdb outlives it, tests/integ/155).
. "$(dirname "$0")/lib.sh"

need_gdb
plan 8

spool_run record -q -o long -- "$PROGS/rr_race_counter-finst" 1 300000000
is_rc 0 "a long recording"

timeout -k 5 120 python3 "$REPO/tests/integ/gdbsrv_sigint.py" "$SPOOL" long 0.5 >rsp.out 2>&1
R="$(cat rsp.out)"
like "$R" 'stopped-sigint T05' "a SIGINT while the replay is stopped: spool stays, the stop is the first one" ||
	diag "$R"
like "$R" 'running-sigint T02thread:' "a SIGINT while the replay runs stops it with SIGINT (spool started with SIGINT blocked)"
like "$R" 'after T02thread:' "  and gdb's '?' says that stop"
like "$R" 'again T02thread:' "  and once more after the next continue"
like "$R" 'exit 0' "  spool ends when gdb kills the replay"

# gdb itself, the SIGINT at spool only (gdb sends no 0x03): gdb shows the
# stop, and the session goes on (a command after it is served).
gdb_sigint() {
	local gpid g spid= i
	timeout -k 5 120 gdb -q -batch -nx -ex "target remote | $SPOOL replay --gdbserver - long" \
		-ex continue -ex 'print 6*7' -ex kill "$PROGS/rr_race_counter-finst" >gdb.out 2>&1 &
	gpid=$!
	for i in $(seq 1 600); do
		g=$(pgrep -P "$gpid" 2>/dev/null | head -1)
		# the server: gdb's child, or its grandchild where gdb's
		# `sh -c` stays (dash, with SHELL unset as under CI); its own
		# child, the janitor, ignores SIGINT
		[ -n "$g" ] && spid=$(for c in "$g" $(pgrep -P "$g" 2>/dev/null); do
			pgrep -P "$c" -x spool 2>/dev/null
		done | head -1)
		[ -n "$spid" ] && grep -q "_start" gdb.out 2>/dev/null && break
		sleep 0.1
	done
	# gdb sends its continue some time after it printed the first stop
	# (late under load); a SIGINT before that is dropped (the replay is
	# stopped), so the SIGINT is sent again until gdb shows the stop or
	# ends.
	for i in $(seq 1 600); do
		[ -n "$spid" ] && kill -0 "$gpid" 2>/dev/null || break
		kill -INT "$spid" 2>/dev/null
		grep -q "received signal SIGINT" gdb.out 2>/dev/null && break
		sleep 0.1
	done
	wait "$gpid"
}
# The replay runs about a second of CPU: on a loaded machine every SIGINT
# may come while it is still stopped and the replay ends first; that
# says nothing, and the session is tried again.
for attempt in 1 2 3; do
	gdb_sigint
	grep -q "exited normally" gdb.out || break
	diag "attempt $attempt: the replay ended before a SIGINT came while it ran"
done
check_sanitizer gdb.out "gdb on spool replay --gdbserver"
like "$(cat gdb.out)" "received signal SIGINT" "gdb: a SIGINT at spool stops the running replay" ||
	diag "$(cat gdb.out)"
like "$(cat gdb.out)" '\$1 = 42' "  and gdb's session goes on"

done_testing
