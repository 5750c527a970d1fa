#!/bin/bash
# SPDX-License-Identifier: MIT
# 270-a64-probe-brk-pages.t - the out-of-line slots of aarch64 BRK probes
# share pages (src/arch/aarch64/a64_agent_brk.c): a probed instruction that
# is not PC-relative runs from a 16-byte slot, and a module's slots are
# packed into pages made executable before its BRKs are written. A program
# of 600 functions (tests/probe/gen_many.py) linked with
# tests/probe/a64_fill.c (no trampoline page within reach), `func:f*`:
# 1,200 BRK probes, each with a slot. Under qemu-user:
#   - output and status as native, every probe placed, nothing lost;
#   - the program's own count of anonymous executable memory
#     (/proc/self/maps) grows by the slots' bytes rounded up to pages, not
#     by a page per probe (1,200 pages, 4.7 MiB, before);
#   - spool says how many slots and pages (SPOOL_DEBUG);
#   - every function counted as often as it was called, and the same
#     counts as the trampolines on the plain build.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 10

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if ! command -v "$A64CC" >/dev/null || ! command -v python3 >/dev/null; then
	skip 10 "no $A64CC or python3"
	done_testing
	exit 0
fi
NF=600
R=3
CC=("$A64CC" "--sysroot=$QEMU_LD_PREFIX")
ok "a program of $NF functions, linked with the space-filling library, cross-builds" \
	sh -c "python3 $SRC/tests/probe/gen_many.py $NF >many.c &&
		${CC[*]} -shared -fPIC -O2 -o libfill.so $SRC/tests/probe/a64_fill.c &&
		${CC[*]} -std=gnu11 -g -O1 -o mfill many.c -L. -Wl,--no-as-needed -lfill \
		-Wl,-rpath,'\$ORIGIN' &&
		${CC[*]} -std=gnu11 -g -O1 -o many many.c"

kib() { sed -n 's/^anon_exec_kib \([0-9]*\)$/\1/p' "$1"; }
# "name calls" of every function f*, sorted
funcs() {
	host_run report --functions --json "$1"
	python3 -c 'import json,sys; [print(f["name"], f["calls"]) for f in sorted(json.load(open(sys.argv[1]))["functions"], key=lambda f: f["name"]) if f["name"].startswith("f")]' run.out
}

native="$(./mfill $R 2>native.err)"
nk="$(kib native.err)"
like "$native" '^sum [0-9]+$' "the program runs natively (anonymous executable memory: $nk KiB)"

SPOOL_DEBUG=1 spool_run probe -e 'func:f*' -o brk.trace -- ./mfill $R
is "$RC:$OUT" "0:$native" "1,200 BRK probes: output and status as native"
like "$ERR" "$((2 * NF)) of $((2 * NF)) probes placed, 0 events lost" "  every probe placed, nothing lost"
like "$ERR" "probe: $((2 * NF)) BRK probes, $((2 * NF)) of them with an out-of-line slot, in [0-9]+ page" \
	"  every probe a BRK with a slot (said)"
pages="$(sed -n 's/.* BRK probes, .* in \([0-9]*\) page.*/\1/p' run.err | tail -1)"
sk="$(kib run.err)"
# the slots' bytes (16 each) in pages of 4 KiB (qemu-user's), one partly
# used page per flush at most: well under a page per probe
bound=$(((2 * NF * 16 + 4095) / 4096 * 4 + 8))
ok "  anonymous executable memory grew by $((sk - nk)) KiB in $pages page(s), at most $bound KiB (a page per probe: $((2 * NF * 4)) KiB)" \
	test -n "$sk" -a -n "$nk" -a $((sk - nk)) -le $bound -a "${pages:-0}" -ge 1
num_cmp "${pages:-0}" -le $(((2 * NF * 16 + 4095) / 4096 + 1)) "  the slots fill their pages"

funcs brk.trace >brk.txt
is "$(awk '$2 != '$R' { n++ } END { print NR, n + 0 }' brk.txt)" "$NF 0" \
	"  each of the $NF functions counted $R times"
spool_run probe -q -e 'func:f*' -o tr.trace -- ./many $R
is "$RC:$OUT" "0:$native" "the plain build (trampolines): as native"
funcs tr.trace >tr.txt
is "$(cat brk.txt)" "$(cat tr.txt)" "  the BRKs count what the trampolines count"

done_testing
