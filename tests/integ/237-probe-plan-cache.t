#!/bin/bash
# SPDX-License-Identifier: MIT
# 237-probe-plan-cache.t - spool probe's plan cache ($XDG_CACHE_HOME/spool/
# plans, doc/probe.md): the first run saves the plan, the second loads it
# (SPOOL_DEBUG says which) and gives the same output, messages, probes and
# counts; a rebuilt program (a new build id) is planned afresh; a damaged
# file, a crafted one (a count out of range, with a right checksum), one
# writable by others, one owned by another user and a symlink are refused
# and the run is the same as without a cache; SPOOL_PLAN_CACHE=0 writes
# none.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_calls"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 24
PLANS="$XDG_CACHE_HOME/spool/plans"
native="$("$PROG" 300 | sort)"

# run NAME: spool probe with SPOOL_DEBUG=1; NAME.err (spool's own lines),
# NAME.calls (calls per function from the report), OUT, RC
run() {
	SPOOL_DEBUG=1 spool_run probe -o "$1.trace" -e 'func:probe_*' -- "$PROG" 300
	grep '^spool: ' run.err | grep -v -e '^spool: debug: ' -e 'trace in ' >"$1.err"
	grep -e 'plan loaded' -e 'plan saved' -e 'plan cache' run.err >"$1.how"
	"$SPOOL" report --functions --json "$1.trace" 2>/dev/null | python3 -c '
import json, sys
for f in sorted(json.load(sys.stdin)["functions"], key=lambda f: f["name"]):
    print(f["name"], f["calls"])' >"$1.calls"
}

run first
is "$OUT" "$("$PROG" 300)" "first run: the program's output"
like "$(cat first.how)" 'plan saved in the cache' "first run: the plan is saved"
is "$(find "$PLANS" -name '*.plan' | wc -l)" 1 "one plan file in \$XDG_CACHE_HOME/spool/plans"
is "$(stat -c %a "$PLANS"/*.plan)" 600 "the plan file is private (0600)"

run second
like "$(cat second.how)" 'plan loaded from the cache' "second run: the plan is loaded from the cache"
is "$(cat second.err)" "$(cat first.err)" "the same messages (planning's included)"
is "$(cat second.calls)" "$(cat first.calls)" "the same calls per function"
is "$(cat second.calls | sort)" "$native" "which are the program's own counts"
is "$(cat second.trace/.spool/probes)" "$(cat first.trace/.spool/probes)" \
	"the same probes (the trace's probe table)"

PLAN="$(ls "$PLANS"/*.plan)"
cp "$PLAN" good.plan

# afresh NAME WHAT WHY: the run planned afresh, said WHY (SPOOL_DEBUG), and
# matches the first
afresh() {
	run "$1"
	if grep -q 'plan loaded' "$1.how"; then
		fail "$2: refused (it was loaded)"
	elif ! grep -q -e "$3" "$1.how"; then
		fail "$2: refused for its reason ($3): $(cat "$1.how")"
	else
		pass "$2: refused ($3), planned afresh"
	fi
	is "$(cat "$1.calls")" "$(cat first.calls)" "$2: the same calls per function"
}

# --- damage: a byte of the payload flipped --------------------------------
python3 - "$PLAN" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-40] ^= 0xff
open(p, "wb").write(b)
PY
afresh damaged "a damaged plan file" "checksum wrong"

# --- crafted: the first module's symbol count out of range, checksum right -
cp good.plan "$PLAN"
python3 - "$PLAN" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
magic, fmt, klen, plen, fnv = struct.unpack_from("<8sIIQQ", b, 0)
o = 32 + klen
def u32(o): return struct.unpack_from("<I", b, o)[0], o + 4
def s(o):
    n, o = u32(o)
    return o + n
n, o = u32(o)
for _ in range(n): o = s(o)          # messages
n, o = u32(o)
for _ in range(n): o = s(s(o))       # libraries
n, o = u32(o)                        # modules
o = s(s(o)) + 8                      # path, name, is_main, stripped
o = s(s(o))                          # sig, debug file
struct.pack_into("<I", b, o, 0x7fffffff)  # nsyms
M = (1 << 64) - 1
def fnvh(d):
    h = 0xcbf29ce484222325
    i = 0
    while i + 8 <= len(d):
        w = struct.unpack_from("<Q", d, i)[0]
        h = ((h ^ w) * 0x100000001b3) & M
        h ^= h >> 29
        i += 8
    for c in d[i:]:
        h = ((h ^ c) * 0x100000001b3) & M
    return h
struct.pack_into("<Q", b, 24, fnvh(bytes(b[32 + klen:])))
open(p, "wb").write(b)
PY
afresh crafted "a crafted plan file (a count out of range, its checksum right)" "out of range"

# --- writable by others, another owner, a symlink ---------------------------
cp good.plan "$PLAN"
chmod 0622 "$PLAN"
afresh groupw "a plan file writable by others" "owner, mode"
cp good.plan "$PLAN"
chmod 0600 "$PLAN"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown nobody "$PLAN"
	afresh other "a plan file owned by another user" "owner, mode"
else
	skip "not root: cannot give a file to another user" 2
fi
rm -f "$PLAN"
cp good.plan elsewhere.plan
ln -s "$PWD/elsewhere.plan" "$PLAN"
afresh symlink "a symlink in place of the plan file" "symlink: refused"
# a refused file is replaced by a good one
run again
like "$(cat again.how)" 'plan loaded from the cache' "the plan saved after a refusal is loaded"

# --- a rebuilt program: a new build id -------------------------------------
if command -v cc >/dev/null; then
	printf 'int f1(int x) { return x * 3; }\nint main(void) { int s = 0; for (int i = 0; i < 7; i++) s += f1(i); return s == 63 ? 0 : 1; }\n' >p.c
	cc -O0 -Wl,--build-id -o p p.c
	SPOOL_DEBUG=1 spool_run probe -o p1.trace -e 'func:f*' -- ./p
	printf 'int f1(int x) { return x * 3; }\nint f2(int x) { return x + 1; }\nint main(void) { int s = 0; for (int i = 0; i < 7; i++) s += f1(i) + f2(i); return s == 91 ? 0 : 1; }\n' >p.c
	cc -O0 -Wl,--build-id -o p p.c
	SPOOL_DEBUG=1 spool_run probe -o p2.trace -e 'func:f*' -- ./p
	is "$RC" 0 "a rebuilt program runs probed"
	unlike "$ERR" 'plan loaded' "a rebuilt program (a new build id) is planned afresh"
	got="$("$SPOOL" report --functions --json p2.trace 2>/dev/null | python3 -c '
import json, sys
print(" ".join("%s=%d" % (f["name"], f["calls"]) for f in sorted(json.load(sys.stdin)["functions"], key=lambda f: f["name"])))')"
	is "$got" "f1=7 f2=7" "its new function is probed"
else
	skip "no C compiler" 3
fi

# --- SPOOL_PLAN_CACHE=0 -----------------------------------------------------
rm -rf "$XDG_CACHE_HOME"
SPOOL_PLAN_CACHE=0 spool_run probe -q -o off.trace -e 'func:probe_*' -- "$PROG" 300
is "$(find "$XDG_CACHE_HOME" -name '*.plan' 2>/dev/null | wc -l)" 0 "SPOOL_PLAN_CACHE=0: no plan saved"

done_testing
