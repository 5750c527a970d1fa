#!/bin/bash
# SPDX-License-Identifier: MIT
# 271-a64-probe-retaddr.t - aarch64: attach refused under qemu-user (no ptrace), and
# exits through the return address (spool probe --exits retaddr;
# src/arch/aarch64/a64_agent_ra.c). Under qemu-user:
#   - `spool probe -p PID` stops at once with exit 1, saying that ptrace
#     does not exist under qemu-user (ENOSYS), and the process runs on
#     untouched (qemu-user does not emulate ptrace: no attach can be tested
#     here: 276 attaches on a real kernel);
#   - tests/progs/probe_retaddr.c cross-built at -O2 (recursion, a longjmp
#     out of a recursion, a signal handler, a second thread, a tail call),
#     plainly and with pointer authentication (-mbranch-protection=standard:
#     LR signed by PACIASP, the trampoline's address signed the same way),
#     and linked with tests/probe/a64_fill.c (BRK entry probes): --list
#     shows every exit as retaddr; the program's output is its own; the
#     calls per function equal its own counts; every call that returned has
#     its exit and every exit its entry, only the calls the longjmp left
#     have none; the 2 ms sleep lasts at least 2 ms.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 23

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
if ! command -v "$A64CC" >/dev/null || ! command -v python3 >/dev/null ||
	[ ! -x "$PROGS/probe_attach" ]; then
	skip 23 "no $A64CC or python3, or $PROGS/probe_attach is not built"
	done_testing
	exit 0
fi
CC=("$A64CC" "--sysroot=$QEMU_LD_PREFIX")

# --- attach ------------------------------------------------------------------
"$PROGS/probe_attach" 3 >attach.out 2>&1 &
apid=$!
wait_for 't [0-9]+ calls' attach.out 15 || true
spool_run probe -p $apid -e 'func:attach_work' --duration 500
is "$RC" 1 "-p PID: refused (exit 1)"
like "$ERR" "ptrace does not exist \\(ENOSYS: qemu-user does not emulate it" \
	"  saying that qemu-user has no ptrace"
wait $apid
arc=$?
like "$arc:$(tail -1 attach.out)" '^0:done calls [0-9]+ check ok$' "  the process ran on untouched and ended well"

# --- --exits retaddr ---------------------------------------------------------
ok "probe_retaddr cross-builds at -O2: plain, with pointer authentication, with the space filler" \
	sh -c "${CC[*]} -O2 -g -o ra $SRC/tests/progs/probe_retaddr.c -lpthread &&
		${CC[*]} -O2 -g -mbranch-protection=standard -o rapac \
		$SRC/tests/progs/probe_retaddr.c -lpthread &&
		${CC[*]} -shared -fPIC -O2 -o libfill.so $SRC/tests/probe/a64_fill.c &&
		${CC[*]} -O2 -g -o rafill $SRC/tests/progs/probe_retaddr.c -L. \
		-Wl,--no-as-needed -lfill -Wl,-rpath,'\$ORIGIN' -lpthread"
native="$(./ra 1000 50)"
jumped="$(echo "$native" | sed -n 's/^jumped //p')"

spool_run probe --list --exits retaddr -e 'func:ra_*' ./ra
like "$OUT" '^ra_[a-z]+ +exit +retaddr +\+0x0 +\(return address\)' "--list: the exits go through the return address"
unlike "$OUT" ' exit +jump ' "  no exit is patched"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# check PROG WHAT: the run's output and the report's counts
check() {
	spool_run probe -q --exits retaddr -e 'func:ra_*' -o "$1.trace" -- "./$1" 1000 50
	is "$RC:$OUT" "0:$native" "$2: exit 0, the program's output its own"
	probe_err="$ERR"
	host_run report --functions --json "$1.trace"
	cp run.out funcs.json
	got="$(json funcs.json 'sorted("%s %d" % (f["name"], f["calls"]) for f in d["functions"])')"
	is "$got" "$(echo "$native" | grep '^ra_' | sort | python3 -c 'import sys; print(sorted(l.strip() for l in sys.stdin))')" \
		"  calls per function equal the program's own counts"
	is "$(json funcs.json 'sum(f["no_exit"] for f in d["functions"] if f["name"] != "ra_jump")') $(json funcs.json 'd["unmatched_exits"]')" \
		"0 0" "  every call that returned has its exit, every exit its entry"
	lost="$(json funcs.json '[f["no_exit"] for f in d["functions"] if f["name"] == "ra_jump"][0]')"
	ok "  only the calls longjmp left have no exit ($lost of $jumped)" \
		test "$lost" -gt 0 -a "$lost" -le "$jumped"
	min="$(json funcs.json '[f["min_ns"] for f in d["functions"] if f["name"] == "ra_sleepy"][0]')"
	num_cmp "$min" -ge 2000000 "  the call that sleeps 2 ms lasts at least 2 ms (${min} ns)"
}
check ra "--exits retaddr"
check rapac "--exits retaddr, LR signed (PACIASP)"
like "$(aarch64-linux-gnu-objdump -d rapac 2>/dev/null | grep -c paciasp)" '^[1-9]' \
	"  (the PAC build signs its return addresses)"
SPOOL_DEBUG=1 check rafill "--exits retaddr at BRK entries"
like "$probe_err" "a BRK at 0x" "  (the entries are BRKs)"

done_testing
