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
