#!/bin/bash
# SPDX-License-Identifier: MIT
# 285-a64-gdb-watch.t - hardware watchpoints of spool replay --gdbserver on
# aarch64 (NT_ARM_HW_WATCH), forward and in reverse, on the VM's real arm64
# kernel, debugged by the host's gdb-multiarch (278's setup: the VM records
# tests/progs/rr_rev_bank and serves its replay over qemu's user network).
# Arm's watchpoints trap before the access, x86's after; the gdb server
# steps the thread over the access (so its searches keep x86's model) and
# answers in place the step gdb for aarch64 makes over a watchpoint it was
# told of. One session, as tests/integ/152 on x86-64, with breakpoints at
# the lines of the two writes (BUG, WITHDRAW): a watchpoint found backwards
# is reached by single steps from the stop before it, which without them
# is far (thousands of steps through the agent and libc, minutes in the
# emulated VM):
#   - from the end, `watch balance` and reverse-continue stop at the write
#     that made the balance wrong (the line marked BUG), in the second
#     teller's thread, with gdb's Old value / New value of going backwards
#     and the balance before the write; the next reverse-continue stops at
#     the breakpoint of that line, the next at the write before it (a
#     withdrawal, in audit);
#   - forward again from there, continue stops at that withdrawal's write,
#     at the breakpoint, then at the doubling, each with the values as they
#     change;
#   - without the watchpoint the replay runs to its end (exit status 1, the
#     recording's).
. "$(dirname "$0")/lib.sh"
a64_need_vm
GDB=gdb-multiarch
command -v "$GDB" >/dev/null || _a64_skip "no $GDB (scripts/deps.sh --arm64 --arm64-vm)"
command -v python3 >/dev/null || _a64_skip "no python3 (a free port for the VM's network)"
[ -x "$PROGS/rr_rev_bank" ] || _a64_skip "$PROGS/rr_rev_bank is not built (make ARCH=aarch64 progs)"
VM="${ARM64_VM:-/var/cache/spool-arm64-vm}"
KVER="$(ls "$VM/lib/modules" 2>/dev/null | head -1)"
KMOD="$VM/lib/modules/$KVER/kernel"
[ -f "$KMOD/drivers/net/virtio_net.ko" ] || _a64_skip "no virtio_net.ko in $VM (scripts/arm64-vm.sh setup)"

plan 15

BIN="$PROGS/rr_rev_bank"
SRC="$REPO/tests/progs/rr_rev_bank.c"
line_of() { grep -n "/\* $1 \*/" "$SRC" | head -1 | cut -d: -f1; }

# the network card's modules, loaded by the VM's script (its initramfs has
# the 9p ones only)
mkdir -p mods
cp "$KMOD/net/core/failover.ko" "$KMOD/drivers/net/net_failover.ko" \
	"$KMOD/drivers/net/virtio_net.ko" mods/

# --- in the VM: record, then serve one gdb session -------------------------
a64_vm_script
cat >>vm.sh <<VM_SH
T=$T_DIR
BIN=$BIN
VM_SH
cat >>vm.sh <<'VM_SH'
for m in failover net_failover virtio_net; do insmod $T/mods/$m.ko; done
ifconfig lo 127.0.0.1 up
ifconfig eth0 10.0.2.15 netmask 255.255.255.0 up
run rec $S record -q -o rec -- $BIN 5
printf '#!/bin/sh\nexec %s replay --gdbserver - %s/rec 2>%s/srv.err\n' \
	"$S" "$T" "$T" >srv.sh
chmod +x srv.sh
timeout 900 nc -l -p 2345 -e $T/srv.sh >nc.out 2>&1 &
nc=$!
i=0
while ! netstat -ltn 2>/dev/null | grep -q ':2345 ' && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
netstat -ltn >listen.txt 2>&1
echo ready >ready
wait $nc
echo $? >nc.rc
VM_SH

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ARM64_VM_HOSTFWD="$PORT:2345" timeout -k 10 1500 "$REPO/scripts/arm64-vm.sh" run "$T_DIR" >vm.log 2>&1 &
VMPID=$!
# the boot, and the recording, both emulated: up to 20 minutes
for _ in $(seq 1200); do
	# (the file is there before its word: 9p shows the VM's creation first)
	[ "$(cat ready 2>/dev/null)" = ready ] && break
	kill -0 "$VMPID" 2>/dev/null || break
	sleep 1
done
is "$(cat ready 2>/dev/null)" ready "the VM booted, recorded the program and listens" ||
	diag "$(tail -20 vm.log; cat rec.err 2>/dev/null)"
is "$(cat rec.rc 2>/dev/null)" 1 "  the recorded run ends with a wrong balance (exit status 1)"

BUG=$(line_of BUG)
END=$(line_of END)
WITHDRAW=$(line_of WITHDRAW)
timeout -k 5 900 "$GDB" -q -batch -nx \
	-ex "set sysroot $QEMU_LD_PREFIX" -ex 'set pagination off' -ex 'set confirm off' \
	-ex 'set tcp connect-timeout 60' -ex 'set remotetimeout 120' \
	-ex "target remote 127.0.0.1:$PORT" \
	-ex "break rr_rev_bank.c:$END" -ex continue -ex 'print balance' \
	-ex "break rr_rev_bank.c:$BUG" -ex "break rr_rev_bank.c:$WITHDRAW" \
	-ex 'watch balance' -ex reverse-continue -ex 'print balance' -ex 'info threads' \
	-ex reverse-continue -ex reverse-continue -ex 'print balance' -ex 'print amount' \
	-ex continue -ex continue -ex continue -ex 'print balance' \
	-ex delete -ex continue \
	"$BIN" >gdb.out 2>&1
GRC=$?
G="$(cat gdb.out)"
G1="$(tr '\n' ' ' <gdb.out)"
wait "$VMPID"
is "$?" 0 "  the VM ran the session to its end" || diag "$(tail -20 vm.log)"
is "$GRC" 0 "gdb-multiarch ran the session" || diag "$(tail -40 gdb.out)"
unlike "$G1$(cat srv.err 2>/dev/null)" 'Could not insert hardware|cannot watch' \
	"the watchpoint is inserted (NT_ARM_HW_WATCH)"
like "$G" '^\$1 = 200$' "at the end of main the balance is wrong (200)"
# (the pc is the store's, inside its line: gdb names the address)
like "$G1" "Old value = 200 +New value = 100 +(0x[0-9a-f]+ in )?teller \\(arg=0x2\\) at [^ ]*rr_rev_bank.c:$BUG" \
	"watch + reverse-continue stop at the write that made the balance wrong"
like "$G1" '\* 2 +Thread [0-9]+ \(replay thread 3[^*]*teller \(arg=0x2\)' \
	"  in the thread that wrote it (the second teller)"
like "$G" '^\$2 = 100$' "  before the write: the balance as it was"
like "$G1" "Breakpoint 2, teller \\(arg=0x2\\) at [^ ]*rr_rev_bank.c:$BUG" \
	"  the next reverse-continue stops at the breakpoint of that line"
like "$G1" "Old value = 100 +New value = [0-9]+ +(0x[0-9a-f]+ in )?audit \\(amount=[0-9]+\\) at [^ ]*rr_rev_bank.c:$WITHDRAW" \
	"the next reverse-continue stops at the write before it (a withdrawal)"
before=$(sed -n 's/^\$3 = \([0-9]*\)$/\1/p' gdb.out)
amount=$(sed -n 's/^\$4 = \([0-9]*\)$/\1/p' gdb.out)
if [ -n "$before" ] && [ -n "$amount" ] && [ "$((before - amount))" -eq 100 ]; then
	pass "  where the balance is the one before it ($before, less $amount: 100)"
else
	fail "  where the balance is the one before it (${before:-none}, less ${amount:-none}: 100)"
fi
like "$G1" "Old value = ${before:-none} +New value = 100 .*Breakpoint 2, teller .*Old value = 100 +New value = 200 " \
	"forward again: continue stops at the withdrawal, the breakpoint, then the doubling"
like "$G" '^\$5 = 200$' "  after the doubling: 200"
like "$G1" '\[Inferior 1 \((process [0-9]+|Remote target)\) exited with code 01\]' \
	"without the watchpoint the replay runs to its end (exit status 1, the recording's)"
done_testing
