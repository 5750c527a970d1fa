#!/bin/bash
# SPDX-License-Identifier: MIT
# 292-probe-attach-sys.t - system probes given while attached: sys:io at
# the attach is accepted (doc/probe.md "System probes": the agent points the
# program's GOT slots at its counting interposers; the counts: 333), the
# program running on to its normal end with correct results; under
# --commands an `add sys:io` while the program runs is answered ok (the
# exact counts of adds and deletes: 361), the code probe placed at the
# attach still counts, the detach is normal and the program's results are
# correct.
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

unlike "$(cat /proc/$PID/maps 2>/dev/null)" 'libspool-agent' "before attaching: no agent in the process"
spool_run probe -p "$PID" -e sys:io -e 'func:attach_work' --duration 300ms -o sys.trace
is_rc 0 "spool probe -p PID -e sys:io -e func:...: attached, detached"
spool_run report --sys sys.trace
like "$OUT" 'system probes: *io' "  spool report --sys: the I/O probe's report"
touch stop.now
wait "$PID"
is "$?" 0 "  the program runs on and exits normally"

# another process (spool attaches to one once)
rm -f stop.now
"$PROG" 60 stop.now >prog.out &
PID=$!
for i in $(seq 1 100); do [ -s prog.out ] && break; sleep 0.05; done
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
is "$?" 0 "--commands: add sys:io while attached, then a normal detach"
like "$(cat cmd.out)" 'ok added sys:io \(on now: sys:io; [0-9]+ GOT slots' "  add sys:io is answered ok, with the GOT slots sent to the counting functions"
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
