#!/bin/bash
# SPDX-License-Identifier: MIT
# 273-a64-vm-kernel.t - spool's aarch64 build on a real arm64 kernel
# (Debian's linux-image-arm64 under qemu-system-aarch64, 2 virtual CPUs:
# scripts/arm64-vm.sh), where qemu-user only emulates the kernel's
# interface inside one process. The lock profiler, serial and sync
# record/replay and launch-mode probes run there; the traces they write are
# read by the host's spool. Attach (`spool probe -p`), which needs ptrace
# of another process and so cannot run under qemu-user at all, works here:
# the program pointed at is probed, then runs on unharmed (276 checks
# attach in depth). One boot runs every case (a boot costs 20-50 s).
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

. "$REPO/tests/arm64/vm_lib.sh"
a64_vm_need

plan 17

# --- in the VM (busybox sh): each case leaves NAME.out, NAME.err, NAME.rc
a64_vm_script
cat >>vm.sh <<'EOF'
run locks $S locks -q -o locks.trace -- $P/lockcount 2 5000
run race $S record --chaos --until-fail 100 -o race.trace -- $P/rr_race_counter-finst 2 1000
for i in 1 2 3; do run race.rep$i $S replay -q -o race.rep$i.trace race.trace; done
run order $S record --mode sync --until-fail 50 -o order.trace -- $P/rr_order 3 2000
for i in 1 2 3; do run order.rep$i $S replay -q -o order.rep$i.trace order.trace; done
run native $P/probe_a64 200
run fn $S probe -e 'func:c_*' -o fn.trace -- $P/probe_a64 200
# attach: the program runs, spool is pointed at it, the program goes on
$P/probe_attach 60 stop.now >att.prog.out &
pid=$!
i=0
while [ ! -s att.prog.out ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
run att $S probe -p $pid -e func:attach_work --duration 1s
touch stop.now
wait $pid
echo $? >att.prog.rc
EOF

a64_vm_run
is "$?" 0 "the VM booted a real arm64 kernel and ran the cases" || diag "$(tail -20 vm.log)"
is "$(cat kernel.txt 2>/dev/null)" aarch64 "  uname -m in the VM: aarch64"

# the lock profiler
is "$(cat locks.rc 2>/dev/null):$(cat locks.out 2>/dev/null)" "0:total=10000" \
	"spool locks on the real kernel: exit 0 and the program's own output"
SUMMARY_FILE=locks.err
is "$(summary_lost)" 0 "  no event lost"
SPOOL="$HOST_SPOOL" report_json locks.trace
is "$(lock_stat report.json shared_lock "$F_ACQ")" 10000 \
	"  the host's spool reports shared_lock acquired THREADS*ITERS times"

# serial record/replay of a lost update
is "$(cat race.rc 2>/dev/null)" 1 "serial record --chaos --until-fail keeps the failing run"
like "$(cat race.out 2>/dev/null)" '^total [0-9]+ of 2000$' "  the counter lost updates"
same=0
for i in 1 2 3; do
	[ "$(cat race.rep$i.rc 2>/dev/null)" = 1 ] && cmp -s race.rep$i.out race.out && same=$((same + 1))
done
is "$same" 3 "  3 serial replays print the failing total and exit 1"
host_run info race.trace
is_rc 0 "  the host's spool info reads the recording"

# sync record/replay
is "$(cat order.rc 2>/dev/null)" 1 "sync record --until-fail keeps a run whose last entry is not thread 0's"
same=0
for i in 1 2 3; do
	[ "$(cat order.rep$i.rc 2>/dev/null)" = 1 ] && cmp -s order.rep$i.out order.out && same=$((same + 1))
done
is "$same" 3 "  3 sync replays print the same log hash and exit 1"

# launch-mode probes
is "$(cat fn.rc 2>/dev/null):$(cat fn.out 2>/dev/null)" "0:$(cat native.out 2>/dev/null)" \
	"spool probe on the real kernel: the program's output and status unchanged"
like "$(cat fn.err 2>/dev/null)" "probes placed, 0 events lost" "  probes placed, no event lost"
host_run report --functions --json fn.trace
like "$OUT" '"name": *"c_[a-z]+"' "  the host's spool reports the probed functions"

# attach: the probes placed, the program unharmed
is "$(cat att.rc 2>/dev/null)" 0 "spool probe -p on the real kernel: exit 0" ||
	diag "$(cat att.err 2>/dev/null)"
like "$(cat att.err 2>/dev/null)" "attached to pid [0-9]+: 2 probes placed" "  its probes placed"
is "$(cat att.prog.rc 2>/dev/null):$(tail -n 1 att.prog.out 2>/dev/null | sed 's/calls [0-9]*/calls N/')" \
	"0:done calls N check ok" "  the program pointed at runs on and ends with correct results"

done_testing
