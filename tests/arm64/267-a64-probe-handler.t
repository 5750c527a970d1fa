#!/bin/bash
# SPDX-License-Identifier: MIT
# 267-a64-probe-handler.t - spool probe --handler on aarch64: custom
# pre/post/error handlers (include/spool/probe.h, its aarch64 ctx: x0-x18,
# lr) cross-built for aarch64 and loaded into the target by the agent
# (a64_agent_probe.c a64_user_load, a64_agent_probe_hot.c). Under qemu-user,
# on tests/progs/probe_a64 (3 threads, N rounds each):
#   - a counting handler (tests/probe/handler_count.c) sees every entry and
#     every exit, and the first argument (x0) of each call: their sum;
#   - a handler that faults on its third call (handler_fault.c): the error
#     handler runs with SIGSEGV, the probe is removed and said so, the
#     program runs on with its own output and status;
#   - the program's own fault, with the fault handlers installed, still
#     kills it with SIGSEGV, as without spool;
#   - an object that cannot be loaded is reported, and spool fails.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 13

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
P="$PROGS/probe_a64"
if ! command -v "$A64CC" >/dev/null || [ ! -x "$P" ]; then
	skip 13 "no $A64CC, or $P is not built"
	done_testing
	exit 0
fi
build_so() { # NAME SOURCE
	"$A64CC" --sysroot="$QEMU_LD_PREFIX" -shared -fPIC -O2 -I"$SRC/include" -o "$1" \
		"$SRC/tests/probe/$2"
}
ok "the counting handler cross-builds for aarch64" build_so count.so handler_count.c
ok "the faulting handler cross-builds for aarch64" build_so fault.so handler_fault.c

N=100
native="$("$P" $N)"
T=$((3 * N))

# --- counting: every entry and exit, the first argument -------------------------
spool_run probe -q --handler ./count.so -e 'func:c_adrp' -e 'func:c_cbz' -- "$P" $N
is "$RC:$OUT" "0:$native" "--handler on aarch64: the program's output and status unchanged"
line="$(grep '^handler pre' run.err)"
is "$(awk '{ print $3 }' <<<"$line")" "$((2 * T))" "  pre ran once per call ($((2 * T)): c_adrp and c_cbz, 3 threads)"
is "$(awk '{ print $5 }' <<<"$line")" "$((2 * T))" "  post ran once per return"
# c_adrp(i) for i = 0..N-1 in each thread
sum_adrp=$((3 * N * (N - 1) / 2))
spool_run probe -q --handler ./count.so -e 'func:c_adrp' -- "$P" $N
is "$(grep '^handler pre' run.err | awk '{ print $7 }')" "$sum_adrp" \
	"  the first argument (ctx->x[0]) of every c_adrp call: their sum $sum_adrp"
spool_run probe -q -e 'func:c_adrp' -o plain.trace -- "$P" $N
host_run report --functions --json plain.trace
plain_calls="$(python3 -c 'import json,sys; print([f["calls"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "c_adrp"])' run.out)"
is "$plain_calls" "[$T]" "  (the standard probe alone records $T calls)"

# --- a handler that faults --------------------------------------------------------
spool_run probe -q --handler ./fault.so -e 'func:c_adrp' -o f.trace -- "$P" $N
is "$RC:$OUT" "0:$native" "a faulting handler: the program exits normally, with its own output"
like "$ERR" "error handler: signal 11" "  the error handler ran with SIGSEGV"
like "$ERR" "1 probes removed while the program ran" "  and spool says the probe was removed"
host_run report --functions --json f.trace
calls="$(python3 -c 'import json,sys; print([f["calls"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "c_adrp"][0])' run.out)"
num_cmp "$calls" -lt "$T" "  once removed, c_adrp is no longer recorded ($calls of $T calls)"

# --- the program's own fault ---------------------------------------------------------
crc="$(sh -c '"$0" 10 >/dev/null 2>&1; echo $?' "$PROGS/crash" 2>/dev/null)"
spool_run probe -q --handler ./count.so -e 'func:main' -- "$PROGS/crash" 10
is "$RC" "$crc" "the program's own SIGSEGV still kills it (status $crc, as without spool)"

# --- cannot be loaded --------------------------------------------------------------
cp "$P" notashared
spool_run probe -q --handler ./notashared -e 'func:c_adrp' -- "$P" 5
num_cmp "$RC" -ne 0 "a handler object that cannot be loaded: spool fails"

done_testing
