#!/bin/bash
# SPDX-License-Identifier: MIT
# 241-a64-probe.t - dynamic function probes on aarch64 (src/arch/aarch64/
# a64_plan.c, a64_insn.c, a64_agent_probe*.c), spool's aarch64 build under
# qemu-user: entries and exits of functions whose first instruction is each
# PC-relative kind (ADRP, ADR, LDR literal, SIMD LDR literal, CBZ, CBNZ,
# TBZ, B.cond on the caller's flags, BL), a lone RET, a tail call's B, and a libc function (after its
# BTI/PAC landing pad, ending in a tail call to a hidden function), counted
# exactly from 3 threads with the program's output unchanged; an entry that
# cannot be probed (after a landing pad, a loop's branch target) refused
# with its reason; a Debian arm64 program (rpcgen,
# from the root) probed in libc, every libc function at once too, with its
# output unchanged; a library
# dlopened after startup (libz) probed when it loads; what is not
# available on aarch64 (-p) refused, --exits retaddr run (271); --disabled: 265. The host's x86-64 spool reads the traces.
. "$(dirname "$0")/../lib.sh"

plan 37

N=300
P="$PROGS/probe_a64"
[ -x "$P" ] || { skip 37 "$P is not built"; done_testing; exit 0; }
native="$("$P" $N 2>&1)"
is "$?" 0 "probe_a64 runs under qemu without spool"

# funcs.py JSON FUNC: "calls no_exit" of FUNC in report --functions --json
cat >funcs.py <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if f["name"] == sys.argv[2]:
        print(f["calls"], f["no_exit"])
        break
else:
    print("absent")
PY

# --- every kind of first instruction, from 3 threads ---
spool_run probe -e 'func:c_*' -e 'func:a_*' -e 'func:libc.so.6:strtoul' -o fn.trace -- "$P" $N
is "$RC:$OUT" "0:$native" "spool probe on aarch64: the program's output and status unchanged"
like "$ERR" "a_padloop is not probed \\(entry refused\\).*landing pad is a branch target" \
	"  a_padloop's entry (a loop's target after its BTI pad) is refused, with the reason"
like "$ERR" "([0-9]+) of \\1 probes placed, 0 events lost" "  every planned probe is placed, no event lost"
host_run report --functions --json fn.trace
is "$RC" 0 "the x86-64 spool reports the aarch64 probe trace"
cp run.out fn.json
T=$((3 * N))
for f in c_ret c_adrp c_cbz a_ldrlit a_adr a_tbz a_cbnz a_tail a_simd a_bcall a_bcond a_blcall \
	a_inc; do
	is "$(python3 funcs.py fn.json $f)" "$T 0" "  $f: $T calls (3 threads x $N), every exit seen"
done
is "$(python3 funcs.py fn.json c_other)" "$((2 * T)) 0" \
	"  c_other: $((2 * T)) calls (direct, and a_tail's tail call), every exit seen"
is "$(python3 funcs.py fn.json a_blfirst)" "$T $T" \
	"  a_blfirst (its first instruction a BL, relocated): $T calls (it returns by br: no exit)"
is "$(python3 funcs.py fn.json strtoul)" "$T 0" "  libc's strtoul: $T calls, every exit seen"
is "$(python3 funcs.py fn.json a_padloop)" "absent" "  a_padloop (refused) has no probe at all"

# --- a library the program dlopens after the probes were placed ---
ZLIB="$QEMU_LD_PREFIX/lib/aarch64-linux-gnu/libz.so.1"
if [ -e "$ZLIB" ]; then
	dlnative="$("$P" 20 libz.so.1 zlibVersion 2>&1)"
	spool_run probe -e 'func:libz.so.1:zlibVersion' -o dl.trace -- "$P" 20 libz.so.1 zlibVersion
	is "$RC:$OUT" "0:$dlnative" "a dlopened library's function probed: the output unchanged"
	host_run report --functions --json dl.trace
	is "$(python3 funcs.py run.out zlibVersion)" "20 0" \
		"  zlibVersion, probed when dlopen loaded libz: 20 calls, every exit seen"
else
	skip 2 "no libz.so.1 in the arm64 root"
fi

# --- a Debian arm64 program: rpcgen (libc-dev-bin, in the root) ---
RPCGEN="$QEMU_LD_PREFIX/usr/bin/rpcgen"
if [ -x "$RPCGEN" ] && command -v cpp >/dev/null; then
	cat >t.x <<'EOF'
struct pair { int a; int b; };
program PAIRPROG { version V1 { int ADD(pair) = 1; string NAME(int) = 2; } = 1; } = 0x20000099;
EOF
	# (rpcgen runs the host's cpp: the aarch64 agent is not loaded there,
	# which ld.so says on stderr)
	"$RPCGEN" -c t.x >native.c 2>/dev/null
	spool_run probe -e 'func:libc.so.6:malloc' -e 'func:libc.so.6:free' \
		-e 'func:libc.so.6:fclose' -o rpc.trace -- "$RPCGEN" -c t.x
	is "$RC" 0 "spool probe rpcgen -c (Debian arm64) exits 0"
	cmp -s run.out native.c
	is "$?" 0 "  its generated C is byte for byte the unprobed run's"
	like "$ERR" ", 0 events lost" "  no event lost"
	host_run report --functions --json rpc.trace
	cp run.out rpc.json
	m="$(python3 funcs.py rpc.json malloc)"
	like "$m" '^[1-9][0-9]* 0$' "  malloc: called ($m), every exit seen"
	like "$(python3 funcs.py rpc.json free)" '^[1-9][0-9]* 0$' "  free: called, every exit seen"
	spool_run probe -e 'func:libc.so.6:malloc' -o rpc2.trace -- "$RPCGEN" -c t.x
	host_run report --functions --json rpc2.trace
	is "$(python3 funcs.py run.out malloc)" "$m" "  a second run counts the same malloc calls"
	# every function of libc (5,000 probes: entries, rets, tail calls),
	# in rpcgen and in its fork child that runs cpp (libc's own fork code
	# in cpp's child, before the agent's fork handler, gets its ring at
	# its first event: nothing lost, as on x86-64, tests/integ/242, 306)
	spool_run probe -e 'func:libc.so.6:*' -o all.trace -- "$RPCGEN" -c t.x
	cmp -s run.out native.c
	is "$RC:$?" "0:0" "func:libc.so.6:* in rpcgen: generated C unchanged, exit 0"
	if grep -Eq "([0-9]{4,}) of \\1 probes placed, 0 events lost" run.err; then
		pass "  thousands of probes, all placed, nothing lost (the fork child's early events kept)"
	else
		fail "  thousands of probes, all placed, nothing lost (the fork child's early events kept)"
		show_run
	fi
	host_run report --functions --json all.trace
	is "$(python3 funcs.py run.out malloc)" "$m" "  malloc counted as when probed alone"
else
	skip 9 "no rpcgen in the arm64 root, or no cpp on the host"
fi

# --- exits through the return address (271 checks them); attach refused under qemu-user ---
spool_run probe -q --exits retaddr -e 'func:c_cbz' -- "$P" 1
is "$RC:$OUT" "0:$("$P" 1 2>/dev/null)" "--exits retaddr runs on aarch64, the output unchanged"
unlike "$ERR" "not available" "  nothing refused"
spool_run probe -e 'func:c_cbz' -p 1
is_rc 1 "attaching (-p PID) is refused under qemu-user (no ptrace; 276 attaches on a real kernel)"
like "$ERR" "attaching .*is not available" "  and spool says why"

done_testing
