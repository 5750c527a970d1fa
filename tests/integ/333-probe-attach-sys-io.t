#!/bin/bash
# SPDX-License-Identifier: MIT
# 333-probe-attach-sys-io.t - sys:io and sys:mem while attached (spool probe
# -p PID -e sys:io -e sys:mem; doc/probe.md, "System probes"): the agent
# points the program's GOT slots of the I/O and allocator functions at its
# counting interposers, and puts them back at the detach. probe_attach_sys
# does known I/O and allocations only while spool is attached, in a thread
# that existed before the attach and in main; spool report --sys gives
# exactly the figures the program counted itself (pipe writes and their
# bytes, read calls and bytes, allocating calls, bytes asked, frees, live
# bytes), each under the thread's own tid, next to the CPU samples of
# sys:cpu. After the detach the program's own GOT entries are what they
# were before the attach (it compares the addresses it takes), it allocates
# and writes on, and ends normally. A second attach to the same process
# counts again.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_attach_sys"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 19

# attach_window DIR TRACE: attach with the system probes, let the program
# work (DIR/go), detach once it says it is done (DIR/worked)
attach_window() {
	rm -f cmds
	mkfifo cmds
	timeout -k 10 120 "$SPOOL" probe -p "$PID" --commands -e sys:io -e sys:mem -e sys:cpu \
		-o "$2" <cmds >"$2.out" 2>"$2.err" &
	SP=$!
	exec 3>cmds
	wait_for 'commands on stdin' "$2.err" 60 || diag "no attach: $(tail -n 5 "$2.err")"
	touch "$1/go"
	for i in $(seq 1 1200); do [ -e "$1/worked" ] && break; sleep 0.05; done
	echo detach >&3
	exec 3>&-
	wait "$SP"
	ARC=$?
}

mkdir -p w1
"$PROG" w1 60 >prog.out 2>prog.err &
PID=$!
for i in $(seq 1 200); do [ -e w1/ready ] && break; sleep 0.05; done
ok "the program is ready (it made w1/ready)" test -e w1/ready
unlike "$(cat /proc/$PID/maps 2>/dev/null)" 'libspool-agent' "before the attach: no agent in the process"

attach_window w1 at.trace
ok "  it did its work while spool was attached (it made w1/worked)" test -e w1/worked
is "$ARC" 0 "spool probe -p PID -e sys:io -e sys:mem -e sys:cpu: attached and detached normally"
check_sanitizer at.trace.err "spool probe -p"
touch w1/stop
wait "$PID"
is "$?" 0 "the program runs on after the detach and exits normally"
read -r _ WTID WCALLS WBYTES WFREES WLIVE WWRITES WWBYTES < <(grep '^worker ' prog.out)
read -r _ MTID MREADS MRBYTES < <(grep '^main ' prog.out)
is "$(grep '^got ' prog.out)" "got same" "  its GOT entries of write, read, malloc and free are back as before the attach"

spool_run report --sys --json at.trace
is_rc 0 "spool report --sys --json on the attached trace"
echo "$OUT" >sys.json
th() { json sys.json "[t for t in d['threads'] if t['tid'] == $1][0]$2"; }
io() { json sys.json "sum(x['$3'] for t in d['threads'] if t['tid'] == $1 for x in t['io'] if x['dir'] == '$2' and x['kind'] == 'pipe')"; }
is "$(io "$WTID" write calls) $(io "$WTID" write bytes)" "$WWRITES $WWBYTES" \
	"  the worker (a thread from before the attach): its pipe writes and bytes, as it counted them"
is "$(io "$MTID" read calls) $(io "$MTID" read bytes)" "$MREADS $MRBYTES" \
	"  main: its read calls and bytes from the pipe"
is "$(th "$WTID" "['mem']['alloc_calls']") $(th "$WTID" "['mem']['alloc_bytes']")" "$WCALLS $WBYTES" \
	"  the worker's allocating calls and bytes asked"
is "$(th "$WTID" "['mem']['frees']") $(th "$WTID" "['mem']['live_bytes']")" "$WFREES $WLIVE" \
	"  its frees and live bytes (usable bytes allocated minus freed)"
is "$(th "$WTID" "['cpu_source']") $(th "$MTID" "['cpu_source']")" "sample sample" \
	"  the same thread entries carry sys:cpu's samples"
is "$(json sys.json 'len(d["rss"]) > 0 and d["rss"][0]["pid"] == '"$PID")" 1 \
	"  and the process's resident set is sampled (sys:mem)"
spool_run report --sys at.trace
like "$OUT" "$WTID +write +pipe +$WWRITES +$WWBYTES" "  the text report's I/O table has the worker's row"

# a second attach to a new process, sys:io alone: counts again, nothing of
# the allocator
mkdir -p w2
"$PROG" w2 20 >prog2.out 2>prog2.err &
PID=$!
for i in $(seq 1 200); do [ -e w2/ready ] && break; sleep 0.05; done
rm -f cmds
mkfifo cmds
timeout -k 10 120 "$SPOOL" probe -p "$PID" --commands -e sys:io -o io.trace <cmds >io.out 2>io.err &
SP=$!
exec 3>cmds
wait_for 'commands on stdin' io.err 60
touch w2/go
for i in $(seq 1 1200); do [ -e w2/worked ] && break; sleep 0.05; done
echo detach >&3
exec 3>&-
wait "$SP"
is "$?" 0 "sys:io alone, attached: detached normally"
touch w2/stop
wait "$PID"
is "$?" 0 "  the program exits normally"
read -r _ WTID _ _ _ _ WWRITES WWBYTES < <(grep '^worker ' prog2.out)
spool_run report --sys --json io.trace
echo "$OUT" >sys.json
is "$(io "$WTID" write calls) $(io "$WTID" write bytes)" "$WWRITES $WWBYTES" \
	"  the worker's pipe writes counted"
is "$(json sys.json 'sum(1 for t in d["threads"] if "mem" in t)')" 0 "  and no allocator figure (sys:mem not asked)"
is "$(grep '^got ' prog2.out)" "got same" "  the GOT entries back as before"

done_testing
