#!/bin/bash
# SPDX-License-Identifier: MIT
# 361-probe-live-sys.t - system probes added and deleted while attached
# (spool probe -p PID --commands: `add sys:io`, `delete sys:io`, the same
# for sys:mem; doc/probe.md, "System probes"). probe_live_sys makes known
# write() calls and allocations in phases the test starts one by one:
#   1  attached, no system probe          counted: nothing
#   2  add sys:io, add sys:mem            io and mem
#   3  delete sys:io                      mem only
#   4  add sys:io                         io and mem
#   5  delete sys:mem                     io only
#   6  delete sys:io, add sys:cpu         the CPU samples only
# spool report --sys gives exactly the sums of the phases each probe was on
# in (write calls and bytes to /dev/null, allocating calls, bytes asked,
# frees, live bytes), nothing of the others. While a probe is deleted, the
# program's own address of write (malloc) is the one from before the attach:
# its GOT slot is back at the delete, not only at the detach; while it is
# on, it is not. After the detach every address is as before. The refusals
# (twice on, not on, disable of a system probe, an unknown name) leave the
# session going. The changes are in the trace's probe_changes.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_live_sys"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 19

# phase N: let the program do phase N, wait until it did
phase() {
	local i
	touch "w/go$1"
	for i in $(seq 1 600); do [ -e "w/done$1" ] && return 0; sleep 0.05; done
	diag "phase $1 did not end"
}

mkdir -p w
"$PROG" w 6 >prog.out 2>prog.err &
PID=$!
for i in $(seq 1 200); do [ -e w/ready ] && break; sleep 0.05; done

cmds_attach "$PID" -o live.trace
phase 1
cmd "add sys:io"
cmd "add sys:mem"
phase 2
cmd "add sys:io"
cmd "delete sys:io"
phase 3
cmd "disable sys:mem"
cmd "add sys:io"
phase 4
cmd "delete sys:mem"
phase 5
cmd "delete sys:io"
cmd "delete sys:cpu"
cmd "add sys:cpu"
cmd "add sys:disk"
cmd "list"
phase 6
sleep 0.1 # a few of sys:cpu's samples (every 10 ms)
echo detach >&3
exec 3>&-
wait "$SP"
is "$?" 0 "spool probe -p PID --commands: attached, system probes added and deleted, detached"
check_sanitizer cmd.err "spool probe -p --commands"
touch w/stop
wait "$PID"
is "$?" 0 "the program runs on after the detach and exits normally"
diag "$(cat cmd.out)"

grep '^ok added sys:io' cmd.out >added.txt
is "$(wc -l <added.txt)" 2 "add sys:io answered ok twice (phases 2 and 4)"
like "$(head -n 1 added.txt)" 'on now: sys:io; [1-9][0-9]* GOT slots' "  naming what is on and the GOT slots sent to the counting functions"
like "$(cat cmd.out)" 'error: sys:io is on already' "a second add of sys:io while on: refused"
like "$(cat cmd.out)" 'error: sys:cpu is not on' "a delete of a probe that is not on: refused"
like "$(cat cmd.out)" 'error: system probes are added and deleted' "disable sys:mem: refused, saying what to do"
like "$(cat cmd.out)" "error: 'sys:disk': want sys:cpu" "an unknown system probe: refused"
is "$(grep '^# system probes on' cmd.out)" "# system probes on: sys:cpu" "  list: the system probes on (sys:cpu, added last)"

# what the program did in each phase, and whether its GOT entries were its own
declare -A W WB C B F L WA MA
while read -r _ n w wb c b f l wa ma; do
	W[$n]=$w WB[$n]=$wb C[$n]=$c B[$n]=$b F[$n]=$f L[$n]=$l WA[$n]=${wa#write=} MA[$n]=${ma#malloc=}
done < <(grep '^phase ' prog.out)
is "${WA[1]} ${WA[2]} ${WA[3]} ${WA[4]} ${WA[5]} ${WA[6]}" "orig other orig other other orig" \
	"  the program's address of write: the agent's only while sys:io is on (its GOT slot back at each delete)"
is "${MA[1]} ${MA[2]} ${MA[3]} ${MA[4]} ${MA[5]} ${MA[6]}" "orig other other other orig orig" \
	"  the same for malloc and sys:mem"
is "$(grep '^got ' prog.out)" "got same" "  after the detach: the program's addresses as before the attach"

spool_run report --sys --json live.trace
is_rc 0 "spool report --sys --json on the trace"
echo "$OUT" >sys.json
io() { json sys.json "sum(x['$1'] for t in d['threads'] for x in t.get('io', []) if x['dir'] == 'write')"; }
mem() { json sys.json "sum(t['mem']['$1'] for t in d['threads'] if 'mem' in t)"; }
is "$(io calls) $(io bytes)" "$((W[2] + W[4] + W[5])) $((WB[2] + WB[4] + WB[5]))" \
	"  write calls and bytes: exactly phases 2, 4 and 5 (sys:io on)"
is "$(mem alloc_calls) $(mem alloc_bytes)" "$((C[2] + C[3] + C[4])) $((B[2] + B[3] + B[4]))" \
	"  allocating calls and bytes asked: exactly phases 2, 3 and 4 (sys:mem on)"
is "$(mem frees) $(mem live_bytes)" "$((F[2] + F[3] + F[4])) $((L[2] + L[3] + L[4]))" \
	"  frees and live bytes: the same phases"
is "$(json sys.json 'sum(1 for t in d["threads"] for x in t.get("io", []) if x["dir"] == "read")')" 0 \
	"  no read counted (the program made none through read())"
is "$(json sys.json '[t["cpu_source"] for t in d["threads"] if t["tid"] == '"$PID"'][0]')" sample \
	"  the main thread's CPU sampled (sys:cpu added at the end)"

spool_run report --functions --json live.trace
echo "$OUT" >fn.json
is "$(json fn.json '" ".join(c["change"] + ":" + c["spec"] for c in d["probe_changes"])')" \
	"add:sys:io add:sys:mem delete:sys:io add:sys:io delete:sys:mem delete:sys:io add:sys:cpu" \
	"the trace's probe changes: each add and delete of a system probe, in order"

done_testing
