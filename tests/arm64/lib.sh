# SPDX-License-Identifier: MIT
# lib.sh - shared setup of the aarch64 tests (tests/arm64/, make check-arm64):
# the helpers of tests/integ/lib.sh with $SPOOL and $PROGS pointing at the
# aarch64 build, run by qemu-user through binfmt_misc, and $HOST_SPOOL at the
# host's own build (the host/target split: the host reads the board's
# traces).
#
# Environment: SPOOL_A64=<absolute build-aarch64 dir>, SPOOL_BUILD=<the
# host build>, ARM64_ROOT (default /var/cache/spool-arm64: the arm64 root
# of scripts/arm64-root.sh, whose libraries qemu loads, QEMU_LD_PREFIX).
# Skips, saying why, when any of these is missing.

_a64_skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

[ -n "${SPOOL_A64:-}" ] || _a64_skip "SPOOL_A64 is not set (run through make check-arm64)"
[ -n "${SPOOL_BUILD:-}" ] || _a64_skip "SPOOL_BUILD is not set (run through make check-arm64)"
HOST_SPOOL="$SPOOL_BUILD/spool"
[ -x "$HOST_SPOOL" ] || _a64_skip "$HOST_SPOOL is not built"
export QEMU_LD_PREFIX="${ARM64_ROOT:-/var/cache/spool-arm64}"
[ -d "$QEMU_LD_PREFIX/usr/lib/aarch64-linux-gnu" ] ||
	_a64_skip "no arm64 root at $QEMU_LD_PREFIX (scripts/arm64-root.sh)"
[ -x "$SPOOL_A64/spool" ] || _a64_skip "$SPOOL_A64/spool is not built (make ARCH=aarch64)"
# binfmt_misc runs aarch64 programs with qemu: spool starts the program
# (and the program its children) by execve, so every exec needs it.
"$SPOOL_A64/spool" --version >/dev/null 2>&1 ||
	_a64_skip "cannot run $SPOOL_A64/spool: qemu-aarch64 is not registered with binfmt_misc (scripts/arm64-root.sh)"
A64_ARCH="$(file -b "$SPOOL_A64/spool" 2>/dev/null)"
case "$A64_ARCH" in
*aarch64*) ;;
*) _a64_skip "$SPOOL_A64/spool is not an aarch64 program ($A64_ARCH)" ;;
esac

SPOOL_BUILD="$SPOOL_A64"
# shellcheck source=../integ/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integ/lib.sh"

# host_run ARGS...: like spool_run, with the host's spool.
host_run() {
	local s="$SPOOL"
	SPOOL="$HOST_SPOOL"
	spool_run "$@"
	SPOOL="$s"
}

# a64_cc_fill SRC OUT CFLAGS...: cross-build SRC into OUT linked with
# tests/probe/a64_fill.c (libfill.so, built here once), which takes the space
# around the program's code: no trampoline page is within a branch's reach,
# so its probes are BRKs (276, 282).
a64_cc_fill() {
	local src=$1 out=$2 cc="${CROSS:-aarch64-linux-gnu-}gcc"
	shift 2
	{ [ -f libfill.so ] ||
		"$cc" --sysroot="$QEMU_LD_PREFIX" -shared -fPIC -O2 -o libfill.so "$REPO/tests/probe/a64_fill.c"; } &&
		"$cc" --sysroot="$QEMU_LD_PREFIX" "$@" -o "$out" "$src" -L. -Wl,--no-as-needed -lfill \
			-Wl,-rpath,'$ORIGIN' -lpthread
}

# --- a real arm64 kernel (273, 276) -----------------------------------------
# One boot of Debian's arm64 kernel under qemu-system-aarch64
# (scripts/arm64-vm.sh) runs every case of a test: the test writes vm.sh,
# the VM runs it in the test's directory, and the test then reads what
# each case left there.

# a64_vm_missing: why the VM cannot run here (nothing when it can): no
# qemu-system-aarch64, no VM root ($ARM64_VM, default
# /var/cache/spool-arm64-vm; sets VM), or a build-aarch64 outside the
# repository ($REPO: the VM sees only the repository, $T_DIR and the arm64
# root). 277 runs its VM part only when it can; 273 and 276 need it.
a64_vm_missing() {
	VM="${ARM64_VM:-/var/cache/spool-arm64-vm}"
	if ! command -v qemu-system-aarch64 >/dev/null; then
		echo "no qemu-system-aarch64 (scripts/arm64-vm.sh setup)"
	elif [ ! -f "$VM/initrd.gz" ]; then
		echo "no VM root at $VM (scripts/arm64-vm.sh setup)"
	else
		case "$SPOOL_A64" in
		"$REPO"/*) ;;
		*) echo "$SPOOL_A64 is not inside $REPO (the VM sees only the repository)" ;;
		esac
	fi
}

# a64_need_vm: skip the whole test, saying why, when the VM cannot run.
a64_need_vm() {
	local why
	why="$(a64_vm_missing)"
	[ -z "$why" ] || _a64_skip "$why"
}

# a64_vm_script: vm.sh's start (the VM's busybox sh): S the aarch64 spool,
# P its test programs, run NAME CMD... (leaves NAME.out, NAME.err and
# NAME.rc), and uname -m into kernel.txt. The test appends its cases.
a64_vm_script() {
	cat >vm.sh <<VM_SH
S=$SPOOL_A64/spool
P=$PROGS
VM_SH
	cat >>vm.sh <<'VM_SH'
run() { n=$1; shift; "$@" >$n.out 2>$n.err; echo $? >$n.rc; }
uname -m >kernel.txt
VM_SH
}

# a64_vm_boot: boot the VM on vm.sh (its log in vm.log); two tests: it
# booted and ran the cases, on an aarch64 kernel.
a64_vm_boot() {
	timeout -k 10 1200 "$REPO/scripts/arm64-vm.sh" run "$T_DIR" >vm.log 2>&1
	is "$?" 0 "the VM booted a real arm64 kernel and ran the cases" || diag "$(tail -20 vm.log)"
	is "$(cat kernel.txt 2>/dev/null)" aarch64 "  uname -m in the VM: aarch64"
}

# --- gdb-multiarch against a replay served in the VM (278, 285) -------------
# The VM records tests/progs/rr_rev_bank and serves its replay (spool
# replay --gdbserver -, behind busybox nc on the VM's port 2345) over qemu's
# user network (ARM64_VM_HOSTFWD: the host's 127.0.0.1:$PORT); the host's
# gdb-multiarch debugs it with the arm64 root as its sysroot (the same files
# the VM runs) and long timeouts (the VM is emulated).

# a64_gdb_vm_need: skip the whole test, saying why, when the session cannot
# run (after a64_need_vm). Sets VM, GDB, BIN, SRC (for line_of) and KMOD
# (the VM kernel's modules).
a64_gdb_vm_need() {
	local kver
	VM="${ARM64_VM:-/var/cache/spool-arm64-vm}"
	GDB=gdb-multiarch
	command -v "$GDB" >/dev/null || _a64_skip "no $GDB (scripts/deps.sh --arm64 --arm64-vm)"
	command -v python3 >/dev/null || _a64_skip "no python3 (a free port for the VM's network)"
	BIN="$PROGS/rr_rev_bank"
	SRC="$REPO/tests/progs/rr_rev_bank.c"
	[ -x "$BIN" ] || _a64_skip "$BIN is not built (make ARCH=aarch64 progs)"
	kver="$(ls "$VM/lib/modules" 2>/dev/null | head -1)"
	KMOD="$VM/lib/modules/$kver/kernel"
	[ -f "$KMOD/drivers/net/virtio_net.ko" ] || _a64_skip "no virtio_net.ko in $VM (scripts/arm64-vm.sh setup)"
}

# a64_gdb_vm_start [VAR=VALUE]: boot the VM (in the background: VMPID; its
# log in vm.log, the host's port in PORT), which records the program and
# serves its replay, with VAR=VALUE in the server's environment; wait until
# it listens. Two tests: it listens, and the recorded run ended with a wrong
# balance (exit status 1).
a64_gdb_vm_start() {
	# the network card's modules, loaded by the VM's script (its initramfs
	# has the 9p ones only)
	mkdir -p mods
	cp "$KMOD/net/core/failover.ko" "$KMOD/drivers/net/net_failover.ko" \
		"$KMOD/drivers/net/virtio_net.ko" mods/
	a64_vm_script
	cat >>vm.sh <<VM_SH
T=$T_DIR
BIN=$BIN
SRV_ENV='${1:-}'
VM_SH
	cat >>vm.sh <<'VM_SH'
for m in failover net_failover virtio_net; do insmod $T/mods/$m.ko; done
ifconfig lo 127.0.0.1 up
ifconfig eth0 10.0.2.15 netmask 255.255.255.0 up
run rec $S record -q -o rec -- $BIN 5
{
	echo '#!/bin/sh'
	[ -z "$SRV_ENV" ] || echo "export $SRV_ENV"
	echo "exec $S replay --gdbserver - $T/rec 2>$T/srv.err"
} >srv.sh
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
}

# a64_gdb_session EX...: one gdb-multiarch session on the VM's server, its
# commands the -ex options given (gdb.out holds its output; G is it, G1 it
# on one line), then wait for the VM. Two tests: the VM ran the session to
# its end, gdb ran it (GRC its status).
a64_gdb_session() {
	timeout -k 5 900 "$GDB" -q -batch -nx \
		-ex "set sysroot $QEMU_LD_PREFIX" -ex 'set pagination off' -ex 'set confirm off' \
		-ex 'set tcp connect-timeout 60' -ex 'set remotetimeout 120' \
		-ex "target remote 127.0.0.1:$PORT" \
		"$@" \
		"$BIN" >gdb.out 2>&1
	GRC=$?
	G="$(cat gdb.out)"
	G1="$(tr '\n' ' ' <gdb.out)"
	wait "$VMPID"
	is "$?" 0 "  the VM ran the session to its end" || diag "$(tail -20 vm.log)"
	is "$GRC" 0 "gdb-multiarch ran the session" || diag "$(tail -40 gdb.out)"
}
