#!/bin/bash
# SPDX-License-Identifier: MIT
# 260-a64-cc-board.t - spool cc on the board (doc/arm64.md, "Trace calls"):
# with an arm64 LLVM (scripts/arm64-root.sh --llvm: DIR-llvm holds
# libllvm14:arm64), make ARCH=aarch64 builds spool-ccopt for the board. Run
# under qemu-user, it rewrites a bitcode file into the same bytes as the
# host's optimizer (the pass is IR-level: the same work on any machine), and
# the aarch64 spool cc, finding it beside itself, builds a program whose
# trace decodes on the host to the plain build's events.
#
# The board's clang-14 is not in the arm64 root (some 250 MB): the host's
# clang-14, with --target=aarch64-linux-gnu and the root as --sysroot, stands
# in for it (the aarch64 spool starts it like any program; the kernel runs
# it natively). So this checks the aarch64 optimizer and driver, not an
# arm64 clang. Skipped, saying why, without the arm64 LLVM.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

LLVM_ROOT="${ARM64_LLVM_ROOT:-$QEMU_LD_PREFIX-llvm}"
LLVM_LIB="$LLVM_ROOT/usr/lib/aarch64-linux-gnu"
if [ ! -e "$LLVM_LIB/libLLVM-14.so.1" ]; then
	echo "1..0 # SKIP no arm64 LLVM at $LLVM_ROOT (scripts/arm64-root.sh --llvm)"
	exit 0
fi
if [ ! -x "$SPOOL_A64/spool-ccopt" ]; then
	echo "1..0 # SKIP $SPOOL_A64/spool-ccopt is not built (make ARCH=aarch64 with $LLVM_ROOT there)"
	exit 0
fi
export SPOOL_CCOPT="${SPOOL_CCOPT:-$(dirname "$HOST_SPOOL")/spool-ccopt}"
cc_require_tools
HOST_CCOPT="$SPOOL_CCOPT"
unset SPOOL_CCOPT

plan 9

ROOT="$QEMU_LD_PREFIX"
X=(--target=aarch64-linux-gnu "--sysroot=$ROOT")
# The guest's loader finds libLLVM (and its libraries) in the LLVM root; the
# host's clang ignores these aarch64 libraries.
A64_LIBS="$LLVM_LIB:$LLVM_ROOT/lib/aarch64-linux-gnu"

# --- the aarch64 optimizer: the host's output, byte for byte ---
for c in "bank O2" "formulas O2" "join O0"; do
	set -- $c
	"$CLANG" "${X[@]}" -DSPOOL_CC=1 -I"$SRC/include" -"$2" -emit-llvm -c \
		"$SRC/tests/cc/$1.c" -o "$1.bc"
	"$HOST_CCOPT" --name "$1.c" "$1.bc" "host-$1.bc"
	LD_LIBRARY_PATH="$A64_LIBS" "$SPOOL_A64/spool-ccopt" --name "$1.c" "$1.bc" "a64-$1.bc" \
		2>a64.err
	ok "$1 -$2: the aarch64 spool-ccopt writes the host's bitcode" cmp "host-$1.bc" "a64-$1.bc"
done

# --- the board's spool cc ---
"$CLANG" "${X[@]}" -O2 -I"$SRC/include" "$SRC/tests/cc/bank.c" -o plain-bank
LD_LIBRARY_PATH="$A64_LIBS" SPOOL_CLANG="$CLANG" spool_run cc "${X[@]}" -O2 --explain \
	"$SRC/tests/cc/bank.c" -o board-bank
is_rc 0 "the aarch64 spool cc builds bank.c with its own optimizer"
like "$ERR" "merged events" "  the optimizer merged the trace calls (--explain)"
like "$(file -b board-bank)" "ARM aarch64" "  an aarch64 program"
spool_run locks -q -o t-plain -- ./plain-bank 200
spool_run locks -q -o t-board -- ./board-bank 200
is_rc 0 "  it runs under the aarch64 spool"
host_run decode t-plain
cp run.out dec-plain
host_run decode --stats t-board
is_rc 0 "the host decodes its trace"
cp run.out dec-board
cc_same_events dec-plain dec-board "  decoded = the plain build's events"
