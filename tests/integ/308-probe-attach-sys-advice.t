#!/bin/bash
# SPDX-License-Identifier: MIT
# 308-probe-attach-sys-advice.t - system probes of an attached process
# (spool probe -p PID -e sys:...; doc/probe.md, "System probes"). sys:cpu
# works attached: spool samples /proc/PID/task, every thread the kernel
# lists is in spool report --sys, each with the CPU it used while spool was
# attached (less than its total since it started, read by the test after the
# detach). sys:io and sys:mem are refused, and the refusal says exactly what
# to do instead: the command that starts the same program under spool with
# the same probes, its arguments as the process has them (one with a space
# and a quote, shell-quoted), and the directory to run it from. A user who
# pastes that command gets the system probes: the test runs it and reads
# spool report --sys. Under --commands, `add sys:cpu` is answered with the
# same command on one line, the session going on.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 22

STOP="stop it's.now"
mkdir -p "run dir"
cd "run dir" || exit 1
rm -f "$STOP"
"$PROG" 60 "$STOP" >prog.out &
PID=$!
for i in $(seq 1 100); do [ -s prog.out ] && break; sleep 0.05; done
HERE="$(pwd -P)"

spool_run probe -p "$PID" -e sys:cpu -e sys:io -e 'func:attach_work' --duration 300ms -o sys.trace
is_rc 2 "spool probe -p PID -e sys:cpu -e sys:io: a usage error"
like "$ERR" 'sys:io and sys:mem need the program started by spool' "  saying sys:io needs the program started by spool"
unlike "$(cat /proc/$PID/maps 2>/dev/null)" 'libspool-agent' "  before attaching: no agent in the process"
CMD="$(grep -A1 'instead, start it under spool with the same probes:' run.err | tail -n 1 | sed 's/^ *//')"
like "$CMD" "^spool probe -e sys:cpu -e sys:io -e func:attach_work -- $PROG 60 " \
	"  the command: the same probes and the program's own path and arguments"
like "$CMD" "'stop it'\\\\''s.now'\$" "  an argument with a space and a quote, shell-quoted"
like "$ERR" "from its directory: '$HERE'" "  the directory to run it from"
like "$ERR" "attach with sys:cpu and code probes only .*/proc/$PID/io" \
	"  and what can be had attached: sys:cpu, and the I/O the kernel keeps"

# --commands: add sys:cpu is answered with the command, on one line
mkfifo cmds
timeout -k 10 60 "$SPOOL" probe -p "$PID" --commands -e 'func:attach_work' -o live.trace \
	<cmds >cmd.out 2>cmd.err &
SP=$!
exec 3>cmds
wait_for 'commands on stdin' cmd.err 15
echo "add sys:cpu" >&3
sleep 0.3
echo detach >&3
exec 3>&-
wait "$SP"
is "$?" 0 "--commands: the session goes on after the refused add and detaches normally"
REPLY="$(grep 'error: sys: probes' cmd.out)"
like "$REPLY" "start it under spool: spool probe -e sys:cpu -- $PROG 60 'stop it'" \
	"  add sys:cpu is answered with the command to run instead"

touch "$STOP"
wait "$PID"
is "$?" 0 "the program runs on and exits normally"

# the advice followed: the command as printed, from the directory named
# (the stop file is there now, so the program ends at once)
rm -rf spool.trace
eval "timeout -k 10 120 \"\$SPOOL\" ${CMD#spool }" >run2.out 2>run2.err
is "$?" 0 "the suggested command runs (exit 0)"
check_sanitizer run2.err "the suggested command"
like "$(tail -n 1 run2.out)" '^done calls [0-9]+ check ok$' "  the program got its arguments back (it saw its stop file)"
spool_run report --sys spool.trace
is_rc 0 "spool report --sys on its trace"
like "$OUT" 'thread end \(exact\)' "  with each thread's exact CPU time"
like "$OUT" 'dir +kind +calls' "  and the I/O table an attached run cannot give"

# sys:cpu attached: sampled from /proc, no usage error (another process:
# spool attaches to one once)
rm -f stop2
"$PROG" 60 stop2 >prog2.out &
PID=$!
for i in $(seq 1 100); do [ -s prog2.out ] && break; sleep 0.05; done
sleep 0.5 # CPU time of its own before the attach
TIDS="$(ls /proc/$PID/task | sort -n | tr '\n' ' ')"
spool_run probe -p "$PID" -e sys:cpu -e 'func:attach_work' --duration 400ms -o cpu.trace
is_rc 0 "spool probe -p PID -e sys:cpu -e func:...: attached, sampled"
spool_run report --sys --json cpu.trace
is_rc 0 "  spool report --sys on its trace"
echo "$OUT" >sys.json
GOT="$(json sys.json 'sorted(t["tid"] for t in d["threads"])' | tr '\n' ' ')"
is "$GOT" "$TIDS" "  every thread of the process (/proc/PID/task), by tid"
is "$(json sys.json 'all(t["pid"] == '"$PID"' and t["cpu_source"] == "sample" for t in d["threads"])')" 1 \
	"  each of the process, from the samples"
worst=""
for t in $TIDS; do
	total="$(cut -d' ' -f1 /proc/$PID/task/$t/schedstat)"
	win="$(json sys.json "[t['cpu_ns'] for t in d['threads'] if t['tid'] == $t][0]")"
	[ "$win" -lt "$total" ] || worst="$t: $win of $total"
done
is "$worst" "" "  each thread's CPU is what it used while attached (less than its total)"
is "$(json sys.json 'sum(t["cpu_ns"] for t in d["threads"]) > 0')" 1 "  and not nothing"
touch stop2
wait "$PID"
is "$?" 0 "  the program runs on and exits normally"

done_testing
