#!/bin/bash
# SPDX-License-Identifier: MIT
# 261-a64-probe-blocks.t - block and branch probes on aarch64 (src/arch/
# aarch64/a64_cfg.c), spool's aarch64 build under qemu-user, the host's
# x86-64 spool reading the traces:
#   - tests/progs/probe_cov (cross-built, -O1): the program's output
#     unchanged, every probe a jump; each marked if's taken / not taken
#     equals the program's own true / false counters;
#   - the same source built at -O0 for both machines: every source line's
#     count and every branch's counts equal the x86-64 spool's of the x86-64
#     build (at -O0 each statement's code is contiguous on both);
#   - a switch whose jump table GCC -O2 emits (tests/progs/probe_swfall.c):
#     each case's line counted as often as the program counted the case,
#     the cases reached by falling through from the one before included;
#   - an LL/SC loop (tests/progs/probe_llsc.c): no probe between the
#     load-exclusive and the store-exclusive, said;
#   - a word shared with a func: probe (probe_a64's c_cbz starts with its
#     CBZ: the entry, the block and the branch in one trampoline): exact
#     calls, block and branch counts from 3 threads;
#   - a Debian arm64 program (rpcgen, from the root): every block and
#     branch of libc probed, its output unchanged; malloc's first block
#     counted as often as func: counts its calls;
#   - a custom handler (--handler) beside block and func: probes.
SRC="$(cd "$(dirname "$0")/../../.." && pwd)"
. "$(dirname "$0")/../lib.sh"

plan 25

P="$PROGS/probe_cov"
[ -x "$P" ] || { skip 25 "$P is not built"; done_testing; exit 0; }
native="$("$P" 300)"

# --- -O1, the program's own counts -------------------------------------------
spool_run probe -e 'block:*' -e 'branch:*' -o cov.trace -- "$P" 300
is "$RC:$OUT" "0:$native" "block: and branch: on aarch64: the output and status unchanged"
like "$ERR" "[0-9]+ probes \\([0-9]+ jump, 0 int3\\)" "  every block and branch is a jump (no int3 on aarch64)"
like "$ERR" "([0-9]+) of \\1 probes placed" "  and all are placed"
host_run report --coverage --json cov.trace
is "$RC" 0 "the x86-64 spool reports the aarch64 coverage"
cp run.out cov.json
got="$(python3 - cov.json "$SRC/tests/progs/probe_cov.c" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
marks = {}
for n, text in enumerate(open(sys.argv[2]), 1):
    m = re.search(r"BR:(\w+)", text)
    if m:
        marks[m.group(1)] = n
for name, line in sorted(marks.items()):
    brs = [b for b in d["branches"] if b["line"] == line]
    if len(brs) != 1:
        print(name, "branches on line", line, len(brs))
        continue
    b = brs[0]
    if b["taken_line"] == line + 1:
        t, f = b["taken"], b["not_taken"]
    elif b["fall_line"] == line + 1:
        t, f = b["not_taken"], b["taken"]
    else:
        t, f = "?", "?"
    print(name, t, f)
PY
)"
want="$(printf '%s\n' "$native" | grep -E '^(mod3|big|both|neg) ' | sort)"
is "$got" "$want" "  each if's taken / not taken equals the program's true / false counts"
is "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted((f["name"], f["count"]) for f in d["functions"] if f["name"] in ("classify", "both", "collatz")))
' cov.json)" "[('both', 300), ('classify', 300), ('collatz', 30)]" \
	"  each function's first block counted once per call"

# --- -O0 on both machines: the same counts as the x86-64 spool ----------------
A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if command -v "$A64CC" >/dev/null && command -v gcc >/dev/null; then
	cp "$SRC/tests/progs/probe_cov.c" .
	"$A64CC" --sysroot="$QEMU_LD_PREFIX" -O0 -g -o cov_a64 probe_cov.c &&
		gcc -O0 -g -o cov_x86 probe_cov.c
	is "$?" 0 "probe_cov builds at -O0 -g for aarch64 and x86-64"
	spool_run probe -e 'block:*' -e 'branch:*' -o a0.trace -- ./cov_a64 300
	is "$RC" 0 "  the aarch64 spool probes the aarch64 build"
	host_run probe -e 'block:*' -e 'branch:*' -o x0.trace -- ./cov_x86 300
	is "$RC" 0 "  the x86-64 spool probes the x86-64 build"
	host_run report --coverage --json a0.trace
	cp run.out a0.json
	host_run report --coverage --json x0.trace
	cp run.out x0.json
	cmp="$(python3 - a0.json x0.json <<'PY'
import json, sys
a, x = (json.load(open(f)) for f in sys.argv[1:3])
la = {l["line"]: l["count"] for l in a["lines"] if l["file"].endswith("probe_cov.c")}
lx = {l["line"]: l["count"] for l in x["lines"] if l["file"].endswith("probe_cov.c")}
bad = ["line %d: x86-64 %s, aarch64 %s" % (n, lx.get(n), la.get(n))
       for n in sorted(set(la) | set(lx)) if la.get(n) != lx.get(n)]
print("lines %d; %s" % (len(la), "; ".join(bad) or "same"))
def br(d):
    return sorted((b["line"], sorted((b["taken"], b["not_taken"])))
                  for b in d["branches"] if b["line"])
print("branches %d; %s" % (len(br(a)), "same" if br(a) == br(x) else "%s != %s" % (br(a), br(x))))
PY
)"
	like "$cmp" "^lines [3-9][0-9]; same" "  every source line's count is the x86-64 one ($(echo "$cmp" | head -1))"
	like "$cmp" "branches [1-9][0-9]*; same" "  every branch's taken / not taken is the x86-64 one"
else
	skip 5 "no $A64CC or gcc on the host"
fi

# --- a jump table (GCC -O2: byte offsets), cases reached by falling through too
if command -v "$A64CC" >/dev/null; then
	"$A64CC" --sysroot="$QEMU_LD_PREFIX" -O2 -g -o swf "$SRC/tests/progs/probe_swfall.c"
	swnative="$(./swf 2000)"
	spool_run probe -e 'block:sw' -o sw.trace -- ./swf 2000
	is "$RC:$OUT" "0:$swnative" "block: on a switch with a jump table: the output unchanged"
	host_run report --coverage --json sw.trace
	is "$(python3 - run.out "$SRC/tests/progs/probe_swfall.c" <<'PY'
import json, re, sys
lines = {l["line"]: l["count"] for l in json.load(open(sys.argv[1]))["lines"]}
for n, text in enumerate(open(sys.argv[2]), 1):
    m = re.search(r"case (\d+): hit", text)
    if m:
        print(m.group(1), lines.get(n, "none"))
PY
)" "$(printf '%s\n' "$swnative" | grep -v '^sum')" \
		"  each case's line count is the program's count of that case (fall-through ones too)"
else
	skip 2 "no $A64CC on the host"
fi

# --- an LL/SC loop: nothing between the load- and the store-exclusive ---------
if command -v "$A64CC" >/dev/null; then
	"$A64CC" --sysroot="$QEMU_LD_PREFIX" -O2 -march=armv8-a -mno-outline-atomics -o llsc \
		"$SRC/tests/progs/probe_llsc.c"
	llnative="$(./llsc 100)"
	spool_run probe -e 'block:llsc_cas' -e 'branch:llsc_cas' -o ll.trace -- ./llsc 100
	is "$RC:$OUT" "0:$llnative" "block: and branch: on an LL/SC loop: the output unchanged"
	like "$ERR" "branch at llsc_cas\+0x[0-9a-f]+ is not counted: it is between a load-exclusive and its store-exclusive" \
		"  the branch between ldaxr and stlxr is not probed, with the reason"
	host_run report --coverage --json ll.trace
	is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["functions"][0]; print(f["count"], f["blocks"], f["blocks_hit"])' run.out)" \
		"100 3 3" "  its 3 blocks counted (the store's block at its cbnz), 100 calls"
else
	skip 3 "no $A64CC on the host"
fi

# --- a word shared with func: (c_cbz: its first instruction is the CBZ) -------
N=300
A="$PROGS/probe_a64"
anative="$("$A" $N 2>&1)"
spool_run probe -e 'func:c_cbz' -e 'block:c_cbz' -e 'branch:c_cbz' -o cbz.trace -- "$A" $N
is "$RC:$OUT" "0:$anative" "func:, block: and branch: on one word: the output unchanged"
host_run report --functions --json cbz.trace
is "$(python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if f["name"] == "c_cbz": print(f["calls"], f["no_exit"])
' run.out)" "$((3 * N)) 0" "  c_cbz: $((3 * N)) calls, every exit seen"
host_run report --coverage --json cbz.trace
is "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["functions"] if f["name"] == "c_cbz"][0]
b = [b for b in d["branches"] if b["function"] == "c_cbz"]
print(f["count"], f["blocks"], f["blocks_hit"], [(x["taken"], x["not_taken"]) for x in b])
' run.out)" "$((3 * N)) 4 4 [($((3 * N / 2)), $((3 * N / 2)))]" \
	"  its entry block $((3 * N)) times, 4 of 4 blocks, the CBZ taken (NULL) and not taken $((3 * N / 2)) times each"

# --- a Debian arm64 program: rpcgen, every block of libc ----------------------
RPCGEN="$QEMU_LD_PREFIX/usr/bin/rpcgen"
if [ -x "$RPCGEN" ] && command -v cpp >/dev/null; then
	cat >t.x <<'EOF'
struct pair { int a; int b; };
program PAIRPROG { version V1 { int ADD(pair) = 1; string NAME(int) = 2; } = 1; } = 0x20000099;
EOF
	"$RPCGEN" -c t.x >native.c 2>/dev/null
	spool_run probe -e 'block:libc.so.6:*' -e 'branch:libc.so.6:*' -o rpc.trace -- \
		"$RPCGEN" -c t.x
	cmp -s run.out native.c
	is "$RC:$?" "0:0" "every block and branch of libc in rpcgen: status and generated C unchanged"
	like "$ERR" "([0-9]{5,}) of \\1 probes placed" "  tens of thousands of probes, all placed"
	spool_run probe -e 'func:libc.so.6:malloc' -e 'block:libc.so.6:malloc' -o m.trace -- \
		"$RPCGEN" -c t.x
	host_run report --functions --json m.trace
	calls="$(python3 -c '
import json, sys
print([f["calls"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "malloc"])
' run.out)"
	host_run report --coverage --json m.trace
	first="$(python3 -c '
import json, sys
print([f["count"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "malloc"])
' run.out)"
	like "$calls" '^\[[1-9][0-9]*\]$' "  malloc probed with func: and block: is called ($calls)"
	is "$first" "$calls" "  and its first block is counted as often as its calls"
else
	skip 4 "no rpcgen in the arm64 root, or no cpp on the host"
fi

# --- a custom handler beside block counters (267: --handler itself) -----------
if command -v "$A64CC" >/dev/null; then
	echo 'void spool_probe_pre(const void *c) { (void)c; }' >h.c
	"$A64CC" --sysroot="$QEMU_LD_PREFIX" -shared -fPIC -o h.so h.c
fi
spool_run probe --handler ./h.so -e 'block:classify' -e 'func:classify' -o h.trace -- "$P" 1
is_rc 0 "a custom handler (--handler) with block: and func: probes of one function"
like "$ERR" "([0-9]+) of \\1 probes placed" "  every probe placed"

done_testing
