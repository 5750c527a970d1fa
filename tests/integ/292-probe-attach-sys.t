#!/bin/bash
# SPDX-License-Identifier: MIT
# 292-probe-attach-sys.t - system probes sys:io and sys:mem while attached:
# not done (doc/probe.md "System probes": the dlopen'ed agent's interposers
# are not what the program calls; sys:cpu is sampled from /proc: 308).
# spool says so and why,
# before it attaches: exit 2, the process untouched (no agent mapped in it)
# and running on to its normal end; under --commands an `add sys:cpu` is an
# error and the session goes on (the code probe still counts, the detach is
# normal).
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 10

rm -f stop.now
"$PROG" 60 stop.now >prog.out &
PID=$!
for i in $(seq 1 100); do [ -s prog.out ] && break; sleep 0.05; done

spool_run probe -p "$PID" -e sys:io -e 'func:attach_work' --duration 300ms -o sys.trace
is_rc 2 "spool probe -p PID -e sys:io: a usage error (sys:cpu alone works attached: 308)"
like "$ERR" 'sys:io and sys:mem need the program started by spool' "  saying sys:io needs the program started by spool"
like "$ERR" 'interposers, which an attached process does not call' "  and why"
unlike "$(cat /proc/$PID/maps 2>/dev/null)" 'libspool-agent' "  before attaching: no agent in the process"

mkfifo cmds
timeout -k 10 60 "$SPOOL" probe -p "$PID" --commands -e 'func:attach_work' -o live.trace \
	<cmds >cmd.out 2>cmd.err &
SP=$!
exec 3>cmds
wait_for 'commands on stdin' cmd.err 15
echo "add sys:io" >&3
sleep 0.3
echo list >&3
sleep 0.2
echo detach >&3
exec 3>&-
wait "$SP"
is "$?" 0 "--commands: the session goes on after the refused add and detaches normally"
like "$(cat cmd.out)" 'error: sys: probes need the program started by spool' "  add sys:io is answered with an error"
hits="$(awk '$1 == 1 && $6 == "attach_work" { h = $8 } END { print h + 0 }' cmd.out)"
num_cmp "$hits" -gt 0 "  the code probe placed at the attach still counts ($hits)"

touch stop.now
wait "$PID"
is "$?" 0 "the program runs on and exits normally"
like "$(tail -n 1 prog.out)" '^done calls [0-9]+ check ok$' "  with correct results"

# started by spool, sys: works (the contrast the message points to)
spool_run probe -q -e sys:cpu -- "$PROG" 0 none
is_rc 0 "spool probe -e sys:cpu -- PROG: system probes on a program started by spool"

done_testing
