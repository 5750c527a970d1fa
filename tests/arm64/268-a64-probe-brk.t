#!/bin/bash
# SPDX-License-Identifier: MIT
# 268-a64-probe-brk.t - the BRK fallback of aarch64 probes
# (src/arch/aarch64/a64_agent_brk.c): where no trampoline page can be
# placed within a B's +-128 MiB, the probed word becomes a BRK whose
# SIGTRAP runs the trampoline's calls on the signal frame's registers, then
# the instruction: emulated when PC-relative, else out of line.
# tests/progs/probe_a64.c is linked with tests/probe/a64_fill.c, a library
# whose constructor (before the agent's) takes every free page within
# 136 MiB of the program. Under qemu-user, 3 threads:
#   - every kind of first instruction probe_a64 has (ADRP, ADR, LDR literal,
#     SIMD LDR literal, CBZ, CBNZ, TBZ, B.cond, BL, RET, a tail call's B):
#     the output unchanged, every probe placed as a BRK, and the same calls
#     and exits as the trampolines count on the plain build;
#   - block: and branch: counts and args: values equal to the trampolines';
#     a --disabled probe records nothing;
#   - a custom handler (--handler) runs at BRK probes; one that faults is
#     removed (the original word put back) and the program runs on.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 17

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
P="$PROGS/probe_a64"
if ! command -v "$A64CC" >/dev/null || [ ! -x "$P" ] || ! command -v python3 >/dev/null; then
	skip 17 "no $A64CC or python3, or $P is not built"
	done_testing
	exit 0
fi
CC=("$A64CC" "--sysroot=$QEMU_LD_PREFIX")
ok "probe_a64 linked with the space-filling library cross-builds" \
	sh -c "${CC[*]} -shared -fPIC -O2 -o libfill.so $SRC/tests/probe/a64_fill.c &&
		${CC[*]} -std=gnu11 -g -O1 -fno-omit-frame-pointer -o pfill \
		$SRC/tests/progs/probe_a64.c -L. -Wl,--no-as-needed -lfill \
		-Wl,-rpath,'\$ORIGIN' -lpthread &&
		${CC[*]} -shared -fPIC -O2 -I$SRC/include -o count.so $SRC/tests/probe/handler_count.c &&
		${CC[*]} -shared -fPIC -O2 -I$SRC/include -o fault.so $SRC/tests/probe/handler_fault.c"

N=40
T=$((3 * N))
native="$("$P" $N 2>/dev/null)"
fillout="$(./pfill $N 2>&1 >/dev/null)"
is "$(./pfill $N 2>/dev/null)" "$native" "pfill runs as probe_a64 does"
like "$fillout" "fill: (2[5-9][0-9]|[3-9][0-9][0-9]) MiB taken" "  the library took the space around it ($fillout)"

# funcs JSON: "name calls no_exit" of every function, sorted
funcs() { python3 -c 'import json,sys; [print(f["name"], f["calls"], f["no_exit"]) for f in sorted(json.load(open(sys.argv[1]))["functions"], key=lambda f: f["name"])]' "$1"; }

# --- function probes: BRK against trampolines --------------------------------
SPECS=(-e 'func:c_*' -e 'func:a_*')
spool_run probe "${SPECS[@]}" -o tr.trace -- "$P" $N
host_run report --functions --json tr.trace
funcs run.out >tr.txt
SPOOL_DEBUG=1 spool_run probe "${SPECS[@]}" -o brk.trace -- ./pfill $N
is "$RC:$OUT" "0:$native" "every function probed by BRK: the output and status unchanged"
like "$ERR" "probe [0-9]+: a BRK at 0x" "  the probes are BRKs (no trampoline page within reach)"
like "$ERR" "([0-9]+) of \\1 probes placed, 0 events lost" "  every probe placed, no event lost"
host_run report --functions --json brk.trace
funcs run.out >brk.txt
like "$(cat tr.txt)" "c_cbz $T 0" "  (the trampolines count $T calls of c_cbz)"
is "$(cat brk.txt)" "$(cat tr.txt)" \
	"  each function's calls and unseen exits equal the trampolines' (every PC-relative kind emulated)"

# --- blocks, branches, arguments, a disabled probe -----------------------------
SPECS=(-e 'block:c_cbz' -e 'branch:a_bcond' -e 'args:c_adrp' --disabled 'func:c_ret' -e 'func:c_other')
spool_run probe -q "${SPECS[@]}" -o tr2.trace -- "$P" $N
spool_run probe -q "${SPECS[@]}" -o brk2.trace -- ./pfill $N
is "$RC:$OUT" "0:$native" "block:, branch:, args: and a disabled func: as BRKs: the output unchanged"
cov() { # TRACE: blocks, branches, the args' values, c_ret's calls
	host_run report --coverage --json "$1"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted((f["name"], f["count"]) for f in d["functions"])); print(sorted((b["function"], b["taken"], b["not_taken"]) for b in d["branches"]))' run.out
	host_run report --vars --json "$1"
	python3 -c 'import json,sys; print(sorted(p["value"] for v in json.load(open(sys.argv[1]))["vars"] for p in v["values"]))' run.out
	host_run report --functions --json "$1"
	funcs run.out | grep -E '^c_(ret|other) '
}
cov tr2.trace >tr2.txt
cov brk2.trace >brk2.txt
like "$(cat brk2.txt)" "\\('c_cbz', $T\\)" "  c_cbz's first block counted $T times"
like "$(sed -n 2p brk2.txt)" "a_bcond', [0-9]+, [0-9]+" "  a_bcond's branch counted taken and not taken"
like "$(cat brk2.txt)" "c_ret 0 0" "  the disabled probe records nothing"
is "$(cat brk2.txt)" "$(cat tr2.txt)" "  blocks, branches, argument values and calls equal the trampolines'"

# --- a custom handler at BRK probes ---------------------------------------------
spool_run probe -q --handler ./count.so -e 'func:c_adrp' -e 'func:c_cbz' -- ./pfill $N
is "$(grep '^handler pre' run.err | awk '{ print $3, $5 }')" "$((2 * T)) $((2 * T))" \
	"--handler at BRK probes: pre and post once per call and return ($((2 * T)))"
spool_run probe -q --handler ./fault.so -e 'func:c_adrp' -- ./pfill $N
is "$RC:$OUT" "0:$native" "a handler faulting at a BRK probe: the program runs on, its output unchanged"
like "$ERR" "error handler: signal 11" "  the error handler ran with SIGSEGV"
like "$ERR" "1 probes removed while the program ran" "  and the BRK was put back (said)"

done_testing
