#!/bin/bash
# SPDX-License-Identifier: MIT
# 259-a64-cc.t - spool cc for a board (doc/arm64.md, doc/cc.md): the host's
# spool cc cross-compiles with clang's --target=aarch64-linux-gnu and the
# arm64 root as --sysroot; its trace optimizer works on the IR, whatever the
# target. The programs of tests/cc/ so built run under the aarch64 spool
# (qemu-user), and the host's spool decode gives back, event for event, what
# the same program built by plain clang for aarch64 writes: merged records,
# constants and formulas left to the host, values taken from the previous
# record, calls moved across joins, SPOOL_TRACE_MOVE and idempotent repeats
# (marks.c), threads. Also: -c and
# a separate link (make CC="spool cc"), --profile of a board's trace,
# decoding when the binary is not where the board ran it (--binary, or
# --sysroot with the board's root; another build refused), and the
# board's own spool cc saying why it has no optimizer.
# The optimizer is the host build's spool-ccopt (SPOOL_CCOPT for the ASan
# pass, whose build has none: SPOOL_CCOPT=$PWD/build/spool-ccopt).
SRC="$(cd "$(dirname "$0")/../../.." && pwd)"
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

# The optimizer is the host's (the aarch64 build has none).
export SPOOL_CCOPT="${SPOOL_CCOPT:-$(dirname "$HOST_SPOOL")/spool-ccopt}"
cc_require_tools

plan 58

ROOT="$QEMU_LD_PREFIX"
X=(--target=aarch64-linux-gnu "--sysroot=$ROOT")

# a64_cc_case NAME OPT ARGS...: build tests/cc/NAME.c with plain clang and
# with spool cc for aarch64, run both under the aarch64 spool, decode both on
# the host and compare. 7 tests.
a64_cc_case() {
	local p="$1" o="$2" rp rc
	shift 2
	"$CLANG" "${X[@]}" -"$o" -I"$SRC/include" "$SRC/tests/cc/$p.c" -o "plain-$p" -lpthread
	host_run cc "${X[@]}" -"$o" --explain "$SRC/tests/cc/$p.c" -o "cc-$p" -lpthread
	is_rc 0 "$p -$o: spool cc --target=aarch64-linux-gnu builds"
	like "$(file -b "cc-$p")" "ARM aarch64" "  an aarch64 program"
	spool_run locks -q -o "t-plain-$p" -- "./plain-$p" "$@"
	cp run.out "out-plain-$p"
	spool_run locks -q -o "t-cc-$p" -- "./cc-$p" "$@"
	is_rc 0 "$p: the spool cc build runs under the aarch64 spool"
	is "$OUT" "$(cat "out-plain-$p")" "  with the plain build's output"
	host_run decode --stats "t-plain-$p"
	cp run.out "dec-plain-$p"
	cp run.err "stats-plain-$p"
	host_run decode --stats "t-cc-$p"
	is_rc 0 "$p: the host's spool decode reads the aarch64 trace"
	cp run.out "dec-cc-$p"
	cp run.err "stats-cc-$p"
	cc_same_events "dec-plain-$p" "dec-cc-$p" "$p: decoded = the plain build's events"
	rp=$(cc_stat "stats-plain-$p" records)
	rc=$(cc_stat "stats-cc-$p" records)
	diag "$p -$o: records plain $rp, spool cc $rc; bytes $(cc_stat "stats-plain-$p" bytes) -> $(cc_stat "stats-cc-$p" bytes)"
	if [ "$p" = untimed ]; then
		# untimed.c merges nothing: its records lose their time stamp read
		ok "$p: decoded times strictly increase" cc_increasing "dec-cc-$p"
	else
		ok "$p: fewer records (${rc:-?} < ${rp:-?})" test "${rc:-0}" -gt 0 -a "${rc:-0}" -lt "${rp:-0}"
	fi
}

a64_cc_case bank O2 200
a64_cc_case formulas O2 300
a64_cc_case join O0 300
a64_cc_case marks O0 100
a64_cc_case threads O2 3 200
a64_cc_case untimed O2 300
ok "untimed: the other programs' decoded times strictly increase too" \
	cc_increasing dec-cc-bank

# --- -c, then a separate link; --sysroot DIR as two arguments ---
host_run cc --target=aarch64-linux-gnu --sysroot "$ROOT" -O2 -c "$SRC/tests/cc/bank.c" -o bank.o
is_rc 0 "spool cc -c with --sysroot DIR (separate argument)"
host_run cc --target=aarch64-linux-gnu --sysroot "$ROOT" bank.o -o bank-sep
is_rc 0 "  linked by spool cc"
spool_run locks -q -o t-sep -- ./bank-sep 200
host_run decode t-sep
cp run.out dec-sep
cc_same_events dec-plain-bank dec-sep "  runs and decodes to the plain build's events"

# --- --profile: an earlier board run's counts, read on the host ---
host_run cc "${X[@]}" -O2 --profile t-cc-bank "$SRC/tests/cc/bank.c" -o prof-bank
is_rc 0 "spool cc --profile with a trace made on aarch64"
spool_run locks -q -o t-prof -- ./prof-bank 200
host_run decode t-prof
cp run.out dec-prof
cc_same_events dec-plain-bank dec-prof "  the profiled build decodes to the plain build's events"

# --- the binary is not where the board ran it ---
mkdir -p elsewhere
mv cc-bank elsewhere/
host_run decode t-cc-bank
ok "decode without the binary at the board's path fails (exit $RC)" test "$RC" != 0
like "$ERR" "--binary" "  and says to give it with --binary"
host_run decode --binary elsewhere/cc-bank t-cc-bank
cp run.out dec-moved
cc_same_events dec-plain-bank dec-moved "  --binary: decoded = the plain build's events"

# --sysroot DIR: the board's root, the binary at the path it ran from
here="$(pwd)"
mkdir -p "board$here"
cp elsewhere/cc-bank "board$here/cc-bank"
host_run decode --sysroot board t-cc-bank
is_rc 0 "decode --sysroot: the binary found inside the board's root"
cp run.out dec-root
cc_same_events dec-plain-bank dec-root "  decoded = the plain build's events"
# another build at that path: its table is not the trace's, refused
cp cc-formulas "board$here/cc-bank"
host_run decode --sysroot board t-cc-bank
is_rc 1 "decode --sysroot with another build at the path: refused (exit 1)"
unlike "$OUT" "^[0-9.]+ [0-9]+ 3 " "  no event decoded with the wrong table"
like "$ERR" "table" "  said: ${ERR%%$'\n'*}"

# --- the board's own spool cc has no optimizer, and says so ---
# (an aarch64 build made with an arm64 LLVM has one: 260-a64-cc-board.t)
if [ -e "$SPOOL_A64/spool-ccopt" ]; then
	skip 2 "$SPOOL_A64 has spool-ccopt (an arm64 LLVM root): 260-a64-cc-board.t"
else
	ccopt="$SPOOL_CCOPT"
	unset SPOOL_CCOPT
	spool_run cc -O2 "$SRC/tests/cc/bank.c" -o board-bank
	export SPOOL_CCOPT="$ccopt"
	is_rc 1 "spool cc on the board (no spool-ccopt in the aarch64 build) fails"
	like "$ERR" "aarch64 build has none.*--target=aarch64-linux-gnu" "  naming the host cross build"
fi
