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
