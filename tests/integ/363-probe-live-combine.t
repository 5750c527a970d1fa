#!/bin/bash
# SPDX-License-Identifier: MIT
# 363-probe-live-combine.t - a second kind of probe at a point another
# probe covers (doc/probe.md, "Changing the probes while attached"): given
# together they share one trampoline, several handlers, at launch (-e
# 'func:*transfer*' -e 'args:_Z8transferiil'), at the attach (-p PID -e ...
# -e ...) and in one `add A -e B` while attached; an `add` of the second
# alone while the first runs is refused with a message that names the
# conflicting spec, the probes to drop and the one command that adds both.
# Following it (delete those, add both at once) gives the combined probes:
# the argument values are read at every call the entry counts. The
# program's output is its own throughout.
. "$(dirname "$0")/lib.sh"

CXX="$(command -v g++ || true)"
if [ -z "$CXX" ]; then
	echo "1..0 # SKIP no g++"
	exit 0
fi
plan 13

"$CXX" -g -O2 -fno-omit-frame-pointer -pthread -o bank "$REPO/tests/progs/cxx/bank.cpp" 2>cc.err &&
	"$CXX" -g -O2 -fno-omit-frame-pointer -o live_bank "$REPO/tests/progs/cxx/live_bank.cpp" 2>>cc.err
ok "the C++ bank programs build" test -x bank -a -x live_bank || diag "$(cat cc.err)"

# launch: the free function transfer(int, int, long), func: with a glob and
# args: by its symbol
native="$(./bank)"
spool_run probe --list -e 'func:*transfer*' -e 'args:_Z8transferiil' ./bank
like "$OUT" 'transfer\(int, int, long\) +var +shared +\+0x0 .*runs in probe [0-9]+.s trampoline \(entry jump of func:\*transfer\*\)' \
	"launch: args: at transfer's entry runs in func:'s trampoline"
spool_run probe -q -e 'func:*transfer*' -e 'args:_Z8transferiil' -o l.trace -- ./bank
is "$RC $(cat run.out)" "0 $native" "  the program's status and output as natively"
"$SPOOL" report --functions --json l.trace >fn.json 2>/dev/null
"$SPOOL" report --vars --json l.trace >vars.json 2>/dev/null
calls="$(json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'transfer(int, int, long)')")"
vals="$(json vars.json "[len(v['values']) for v in d['vars'] if v['name'] == 'amount'][0]")"
is "$vals" "$calls" "  amount read at every call of transfer ($calls)"

# attached: live_bank calls Bank::transfer every millisecond
rm -f stop
./live_bank stop >lb.out &
LB=$!
wait_for ready lb.out 15
cmds_attach "$LB" -e 'func:Bank::transfer' -e 'args:Bank::transfer' -o a.trace
cmd list
like "$(cat cmd.out)" ' var shared .* enabled [0-9-]+ Bank::transfer' \
	"attached with both specs: args: in func:'s trampoline, as at launch"
cmd "delete 1 2 3"
cmd "add func:Bank::transfer"
sleep 0.2
cmd "add args:Bank::transfer"
ERRL="$(grep "^error: 'args:Bank::transfer' placed no probe" cmd.out)"
like "$ERRL" "by 'func:Bank::transfer'" "add args: alone at a point func: holds: refused, naming the conflicting spec"
drop="$(echo "$ERRL" | sed -n 's/.*drop those (delete \([0-9 ]*\)).*/\1/p')"
like "$drop" '^[0-9]+( [0-9]+)*$' "  and the probes to drop ($drop)"
like "$ERRL" 'add func:Bank::transfer -e args:Bank::transfer' "  and the one command that adds both"
cmd "delete $drop"
cmd "add func:Bank::transfer -e args:Bank::transfer"
like "$(tail -n 1 cmd.out)" '^ok added [0-9]+ probes' "  done so: both added in one command"
sleep 0.5
cmd list
lst="$(awk '/^# id/ { n = 0 } { l[n++] = $0 } END { for (i = 0; i < n; i++) print l[i] }' cmd.out)"
entry="$(echo "$lst" | awk '$2 == "entry" && $7 == "enabled" { print $8 }' | tail -n 1)"
var="$(echo "$lst" | awk '$2 == "var" && $3 == "shared" && $7 == "enabled" { print $8 }' | tail -n 1)"
num_cmp "${var:-0}" -gt 0 "  the arguments are read ($var) in the entry's trampoline"
ok "  at every call the entry counts ($entry), one in flight aside" \
	test "${entry:-0}" -ge "${var:-0}" -a "${entry:-0}" -le $((${var:-0} + 1))
echo detach >&3
exec 3>&-
wait "$SP"
is "$?" 0 "spool detached normally"
touch stop
wait "$LB"
is "$? $(cat lb.out | tr '\n' ' ')" "0 ready done 1 " "the program ends with its own output"

done_testing
