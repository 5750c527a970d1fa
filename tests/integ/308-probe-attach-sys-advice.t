#!/bin/bash
# SPDX-License-Identifier: MIT
# 308-probe-attach-sys-advice.t - system probes of an attached process
# (spool probe -p PID -e sys:...; doc/probe.md, "System probes"). sys:cpu
# works attached: spool samples /proc/PID/task, every thread the kernel
# lists is in spool report --sys, each with the CPU it used while spool was
# attached (less than its total since it started, read by the test after the
# detach). sys:io is accepted at the attach too (its counts: 333; added
# and deleted under --commands: 361). Under --commands, `add sys:mem` in a
# process whose malloc is not libc's (a preloaded allocator: the agent
# counts all of the allocator or none of it) is refused, the session going
# on, and the reply says on one line what to do instead: start the program
# under spool with the command it prints (the program's arguments as the
# process has them, one with a space and a quote, shell-quoted, and the
# directory to run it from). A user who pastes that command gets the
# system probes: the test runs it and reads spool report --sys.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
need_cc
plan 19

# an allocator of the program's own (malloc and free ahead of libc's)
cat >shim.c <<'EOF'
#include <stddef.h>
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
void *malloc(size_t n) { return __libc_malloc(n); }
void free(void *p) { __libc_free(p); }
EOF
"$CC" -shared -fPIC -O1 -o shim.so shim.c || diag "shim.so does not build"
SHIM="$PWD/shim.so"

STOP="stop it's.now"
mkdir -p "run dir"
cd "run dir" || exit 1
rm -f "$STOP"
LD_PRELOAD="$SHIM" "$PROG" 60 "$STOP" >prog.out &
PID=$!
for i in $(seq 1 100); do [ -s prog.out ] && break; sleep 0.05; done
HERE="$(pwd -P)"

# (sys:io attached, on another process: spool attaches to one once)
rm -f stop0
"$PROG" 60 stop0 >prog0.out &
PID0=$!
for i in $(seq 1 100); do [ -s prog0.out ] && break; sleep 0.05; done
spool_run probe -p "$PID0" -e sys:cpu -e sys:io -e 'func:attach_work' --duration 300ms -o sys.trace
is_rc 0 "spool probe -p PID -e sys:cpu -e sys:io -e func:...: attached (sys:io counts attached: 333)"
spool_run report --sys sys.trace
like "$OUT" 'dir +kind +calls' "  its trace has the I/O table"
touch stop0
wait "$PID0"

# --commands: add sys:mem, the allocator not libc's, is answered with what
# to do instead, on one line: start the program under spool
mkfifo cmds
timeout -k 10 60 "$SPOOL" probe -p "$PID" --commands -e 'func:attach_work' -o live.trace \
	<cmds >cmd.out 2>cmd.err &
SP=$!
exec 3>cmds
wait_for 'commands on stdin' cmd.err 15
echo "add sys:mem" >&3
sleep 0.3
echo detach >&3
exec 3>&-
wait "$SP"
is "$?" 0 "--commands: the session goes on after the refused add and detaches normally"
REPLY="$(grep 'error: sys:mem' cmd.out)"
like "$REPLY" "error: sys:mem: not counted here: the process's own definitions of its functions are not libc's" \
	"  add sys:mem is answered with why it cannot count there"
like "$REPLY" "start it under spool: spool probe -e sys:mem -- $PROG 60 'stop it'" \
	"  and with the command that starts the program under spool"
CMD="$(echo "$REPLY" | sed -e 's/.*start it under spool: //' -e 's/ *(from its directory:.*//')"
like "$CMD" "'stop it'\\\\''s.now'\$" "  an argument with a space and a quote, shell-quoted"
like "$REPLY" "from its directory: '$HERE'" "  the directory to run it from"

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
like "$OUT" 'bytes asked' "  with the allocator's figures"

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
