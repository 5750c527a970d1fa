#!/bin/bash
# SPDX-License-Identifier: MIT
# arm64-vm.sh - runs a script on a real arm64 Linux kernel, under
# qemu-system-aarch64 (doc/arm64.md, "A real kernel"): what qemu-user cannot
# show, because it emulates the kernel's interface inside one process
# (ptrace, syscall user dispatch, /proc of another process, real threads on
# two virtual CPUs), is tried there.
#
#   scripts/arm64-vm.sh setup     the VM's root, once: Debian's own arm64
#                                 kernel (linux-image-arm64) and busybox-static,
#                                 unpacked by mmdebstrap (about 15 s, 440 MB),
#                                 and its initramfs (busybox, the 9p modules,
#                                 an init)
#   scripts/arm64-vm.sh run DIR   boots the kernel with 2 CPUs and 1 GiB, runs
#                                 `sh DIR/vm.sh` in DIR and powers off; the
#                                 script's output is in DIR/vm.out (printed
#                                 here too), the console in DIR/vm.console;
#                                 exits with the script's status (125: the VM
#                                 did not say, e.g. it did not boot in time)
#
# The VM sees three host folders over virtio-9p, at their host paths: the
# repository (read-only: build-aarch64/, tests/), DIR (read-write: what the
# script writes, traces, is read on the host afterwards) and the arm64 root
# of scripts/arm64-root.sh at /a64 (read-only: the libraries spool links;
# /lib and /usr point there). Nothing else of the host is visible. Paths
# with blanks are refused (they go through the kernel's command line).
#
# Environment: ARM64_ROOT (default /var/cache/spool-arm64), ARM64_VM (the
# VM's root, default /var/cache/spool-arm64-vm), ARM64_VM_TIMEOUT (seconds,
# default 900: the guest is emulated instruction by instruction),
# ARM64_VM_HOSTFWD=HOSTPORT:GUESTPORT (none by default): a virtio network
# card on qemu's user-mode network, the host's 127.0.0.1:HOSTPORT forwarded
# to the guest's GUESTPORT at 10.0.2.15 (tests/arm64/278: gdb on the host,
# spool's gdb server in the VM). The script loads the card's modules and
# sets its address itself (the initramfs has only the 9p ones).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
ROOT="${ARM64_ROOT:-/var/cache/spool-arm64}"
VM="${ARM64_VM:-/var/cache/spool-arm64-vm}"
TIMEOUT="${ARM64_VM_TIMEOUT:-900}"

die() {
	echo "arm64-vm.sh: $*" >&2
	exit 2
}

# The init of the VM (PID 1, busybox sh): mounts, loads the 9p modules
# (Debian builds them as modules), runs the script, says its status on the
# console and in DIR/vm.rc, powers off.
vm_init() {
	cat <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/shm /dev/pts
mount -t tmpfs shm /dev/shm
mount -t devpts pts /dev/pts
mount -t tmpfs tmp /tmp
for m in netfs fscache 9pnet virtio_mmio 9pnet_virtio 9p; do
	insmod /mods/$m.ko 2>/dev/null
done
for a in $(cat /proc/cmdline); do
	case "$a" in
	spoolvm_repo=*) repo=${a#spoolvm_repo=} ;;
	spoolvm_dir=*) dir=${a#spoolvm_dir=} ;;
	esac
done
o=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /a64 "$repo" "$dir"
if mount -t 9p -o $o,ro a64root /a64 && mount -t 9p -o $o,ro repo "$repo" &&
	mount -t 9p -o $o dir "$dir"; then
	cd "$dir"
	PATH=/bin HOME=/tmp sh "$dir/vm.sh" >"$dir/vm.out" 2>&1 </dev/null
	rc=$?
	echo "$rc" >"$dir/vm.rc"
	sync
	echo "SPOOL-VM-EXIT $rc"
else
	echo "SPOOL-VM-EXIT 125 (the 9p mounts failed)"
fi
poweroff -f
EOF
}

setup() {
	local kver
	[ "$(id -u)" -eq 0 ] || die "setup: run as root"
	"$HERE/deps.sh" --arm64 --arm64-vm
	if [ ! -f "$VM/.spool-arm64-vm" ]; then
		echo "arm64-vm.sh: making $VM (Debian's arm64 kernel and busybox-static)"
		rm -rf "$VM.tmp"
		mmdebstrap --quiet --arch=arm64 --variant=extract \
			--include=linux-image-arm64,busybox-static \
			"$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")" "$VM.tmp"
		echo "linux-image-arm64 busybox-static" >"$VM.tmp/.spool-arm64-vm"
		rm -rf "$VM"
		mv "$VM.tmp" "$VM"
	fi
	# the initramfs, made again when its init changes
	if [ ! -f "$VM/initrd.gz" ] || ! vm_init | cmp -s - "$VM/initrd.init"; then
		local t
		t="$(mktemp -d)"
		mkdir -p "$t"/{bin,proc,sys,dev,tmp,mods}
		cp "$VM/bin/busybox" "$t/bin/busybox"
		for a in $(qemu-aarch64-static "$t/bin/busybox" --list); do
			[ "$a" = busybox ] || ln -s busybox "$t/bin/$a"
		done
		kver="$(ls "$VM/lib/modules" | head -1)"
		for m in fs/netfs/netfs.ko fs/fscache/fscache.ko net/9p/9pnet.ko \
			drivers/virtio/virtio_mmio.ko net/9p/9pnet_virtio.ko fs/9p/9p.ko; do
			cp "$VM/lib/modules/$kver/kernel/$m" "$t/mods/"
		done
		ln -s /a64/lib "$t/lib"
		ln -s /a64/usr "$t/usr"
		vm_init >"$t/init"
		chmod +x "$t/init"
		(cd "$t" && find . | cpio -o -H newc --quiet | gzip -1) >"$VM/initrd.gz.tmp"
		mv "$VM/initrd.gz.tmp" "$VM/initrd.gz"
		vm_init >"$VM/initrd.init"
		rm -rf "$t"
	fi
	echo "arm64-vm.sh: $VM is ready ($(ls "$VM/boot" | grep vmlinuz))"
}

run() {
	local dir="$1" kernel rc
	dir="$(cd "$dir" && pwd)" || die "run: no folder $1"
	[ -f "$dir/vm.sh" ] || die "run: no $dir/vm.sh"
	case "$dir$REPO" in *[[:space:]]*) die "run: a path with blanks ($dir, $REPO)" ;; esac
	[ -f "$VM/initrd.gz" ] || die "run: no VM root at $VM (scripts/arm64-vm.sh setup)"
	[ -d "$ROOT/usr/lib/aarch64-linux-gnu" ] || die "run: no arm64 root at $ROOT (scripts/arm64-root.sh)"
	kernel="$(ls "$VM"/boot/vmlinuz-* | head -1)"
	rm -f "$dir/vm.rc" "$dir/vm.out"
	# -nic none by default: the VM needs no network (and virt's default
	# NIC wants its boot ROM, efi-virtio.rom, package ipxe-qemu, which a
	# qemu installed without recommended packages does not have: qemu
	# refused to start); the virtio-mmio card has no ROM
	local nic=(-nic none) fwd="${ARM64_VM_HOSTFWD:-}"
	if [ -n "$fwd" ]; then
		case "$fwd" in
		[0-9]*:[0-9]*) ;;
		*) die "run: ARM64_VM_HOSTFWD=$fwd: want HOSTPORT:GUESTPORT" ;;
		esac
		nic=(-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:${fwd%%:*}-:${fwd##*:}"
			-device virtio-net-device,netdev=n0)
	fi
	set +e
	timeout -k 10 "$TIMEOUT" qemu-system-aarch64 -M virt -cpu max -smp 2 -m 1024 \
		-nographic -no-reboot "${nic[@]}" -kernel "$kernel" -initrd "$VM/initrd.gz" \
		-append "console=ttyAMA0 rdinit=/init quiet panic=-1 spoolvm_repo=$REPO spoolvm_dir=$dir" \
		-fsdev "local,id=a64root,path=$ROOT,security_model=none,readonly=on" \
		-device virtio-9p-device,fsdev=a64root,mount_tag=a64root \
		-fsdev "local,id=repo,path=$REPO,security_model=none,readonly=on" \
		-device virtio-9p-device,fsdev=repo,mount_tag=repo \
		-fsdev "local,id=dir,path=$dir,security_model=none" \
		-device virtio-9p-device,fsdev=dir,mount_tag=dir \
		</dev/null >"$dir/vm.console" 2>&1
	set -e
	[ -f "$dir/vm.out" ] && cat "$dir/vm.out"
	rc="$(cat "$dir/vm.rc" 2>/dev/null || echo 125)"
	[ "$rc" = 125 ] && tail -n 20 "$dir/vm.console" >&2
	exit "$rc"
}

case "${1:-}" in
setup) setup ;;
run)
	[ $# -eq 2 ] || die "usage: arm64-vm.sh run DIR"
	run "$2"
	;;
*) die "usage: arm64-vm.sh setup | run DIR" ;;
esac
