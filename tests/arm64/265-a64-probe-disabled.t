#!/bin/bash
# SPDX-License-Identifier: MIT
# 265-a64-probe-disabled.t - probes placed disabled on aarch64 (spool probe
# --disabled SPEC; a64_insn.c a64_code_skip, probe_mgr.c probe_area_skips),
# spool's aarch64 build under qemu-user, the host's x86-64 spool reading the
# traces: a disabled probe is placed (its B written) but its trampoline's
# first word branches straight to the moved instruction, so it records
# nothing and the program runs as unprobed; where several probes share one
# trampoline (a func: entry and a block: counter on one word), only the
# disabled one's call is skipped, the other counts exactly. From 3 threads
# of tests/progs/probe_a64 (every function called N times per thread).
. "$(dirname "$0")/lib.sh"

plan 12

N=200
P="$PROGS/probe_a64"
[ -x "$P" ] || { skip 12 "$P is not built"; done_testing; exit 0; }
native="$("$P" $N 2>&1)"
T=$((3 * N))

# calls.py JSON FUNC: FUNC's calls in report --functions --json, or absent
cat >calls.py <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if f["name"] == sys.argv[2]:
        print(f["calls"])
        break
else:
    print("absent")
PY
# cov FUNC: "calls blocks" of FUNC in the coverage table spool printed
cov() { awk -v f="$1" '$1 == f && $3 ~ /\// { print $2, $3 }' run.err; }

# --- a disabled function probe beside an enabled one ---
spool_run probe --disabled 'func:c_adrp' -e 'func:c_cbz' -o f.trace -- "$P" $N
is "$RC:$OUT" "0:$native" "--disabled func: on aarch64: the program's output and status unchanged"
like "$ERR" "4 of 4 probes placed, 0 events lost" "  every probe placed, the disabled ones too"
host_run report --functions --json f.trace
cp run.out f.json
is "$(python3 calls.py f.json c_cbz)" "$T" "  the enabled probe counts every call ($T)"
is "$(python3 calls.py f.json c_adrp)" "0" "  the disabled one records nothing (0 calls)"

# --- block counters: one disabled, one enabled ---
spool_run probe --disabled 'block:c_other' -e 'block:a_inc' -o b.trace -- "$P" $N
is "$RC:$OUT" "0:$native" "--disabled block: the output unchanged"
is "$(cov a_inc)" "$T 1/1" "  the enabled block counter: $T"
is "$(cov c_other)" "0 0/1" "  the disabled block counter: 0"

# --- one trampoline, two probes: only the disabled call is skipped ---
spool_run probe --disabled 'func:c_cbz' -e 'block:c_cbz' -o s.trace -- "$P" $N
is "$RC:$OUT" "0:$native" "a disabled func: and an enabled block: on the same word: output unchanged"
is "$(cov c_cbz | cut -d' ' -f1)" "$T" "  the block counter riding in the entry's trampoline counts $T"
host_run report --functions --json s.trace
is "$(python3 calls.py run.out c_cbz)" "0" "  the disabled entry and exit record nothing (0 calls)"
spool_run probe -e 'func:c_cbz' --disabled 'block:c_cbz' -o s2.trace -- "$P" $N
is "$(cov c_cbz)" "0 0/4" "the other way round: the disabled block counter stays 0"
host_run report --functions --json s2.trace
is "$(python3 calls.py run.out c_cbz)" "$T" "  ... and the enabled entry in the same trampoline records $T calls"

done_testing
