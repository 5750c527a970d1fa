# SPDX-License-Identifier: MIT
# vm_lib.sh - the helpers of the aarch64 tests that run on a real arm64
# kernel (scripts/arm64-vm.sh: Debian's kernel under qemu-system-aarch64),
# sourced after lib.sh by 273, 276 and 277. Each test writes the cases into
# vm.sh (busybox sh, run in $T_DIR, which the VM sees read-write), boots the
# VM once and reads what the cases left there.
#
#   a64_vm_missing    why the VM cannot run here (nothing when it can): no
#                     qemu-system-aarch64, no VM root, or an aarch64 build
#                     outside the repository (the VM sees only the
#                     repository, $T_DIR and the arm64 root)
#   a64_vm_need       skip the whole test, saying why, when it cannot
#   a64_vm_script     start vm.sh: S (the aarch64 spool), P (its test
#                     programs), run NAME CMD... (NAME.out, NAME.err,
#                     NAME.rc), wait_line FILE RE (up to 20 s for a line),
#                     and kernel.txt (uname -m); the test appends its cases
#   a64_vm_run        boot, run vm.sh, power off: the exit status of
#                     scripts/arm64-vm.sh (0: vm.sh ran to its end); the
#                     console's log in vm.log
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
VM="${ARM64_VM:-/var/cache/spool-arm64-vm}"

a64_vm_missing() {
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

a64_vm_need() {
	local why
	why="$(a64_vm_missing)"
	[ -z "$why" ] || _a64_skip "$why"
}

a64_vm_script() {
	cat >vm.sh <<EOF
S=$SPOOL_A64/spool
P=$PROGS
EOF
	cat >>vm.sh <<'EOF'
run() { n=$1; shift; "$@" >$n.out 2>$n.err; echo $? >$n.rc; }
wait_line() { i=0; while ! grep -qE "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; }
uname -m >kernel.txt
EOF
}

a64_vm_run() {
	timeout -k 10 1200 "$REPO/scripts/arm64-vm.sh" run "$T_DIR" >vm.log 2>&1
}
