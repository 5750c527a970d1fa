#!/bin/bash
# SPDX-License-Identifier: MIT
# 281-a64-retaddr-cancel.t - aarch64, under qemu-user: pthread_cancel,
# pthread_exit and C++ exceptions through frames whose return addresses
# spool swapped (--exits retaddr; src/arch/aarch64/a64_agent_ra.c;
# doc/probe.md, "Exits through the return address"), as 362 checks on
# x86-64. The unwinder must find the real frames through the trampoline's
# CFI and the agent's unwinder hooks, so that every cleanup handler,
# destructor and catch block runs and each cancel completes:
#   - tests/progs/probe_cancel (C: cleanup handlers in four frames, threads
#     cancelled in read() or ending by pthread_exit from the deepest frame),
#     from the aarch64 build: its output as under qemu without spool, and
#     every call of the cleanup handler recorded, those made while
#     pthread_exit unwinds too;
#   - tests/progs/cxx/probe_cancel.cpp cross-built with g++ -O2 and
#     probed on every function: exceptions caught five frames up, a cancel
#     unwinding destructors, a catch of abi::__forced_unwind that
#     rethrows. No unwinder hook of the agent's exists on aarch64, so a
#     program that can throw gets patched exits, said once (a64_plan.c);
#     its libstdc++ was not seen when no spec named a library, and the
#     program died in std::terminate at its first throw. Now: the output
#     as without spool, and the catching function's exits all seen.
# The reports are read by the host's spool (the host/target split).
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 11

PROG="$PROGS/probe_cancel"
if ! command -v python3 >/dev/null || [ ! -x "$PROG" ]; then
	skip 11 "no python3, or $PROG is not built"
	done_testing
	exit 0
fi

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# calls TRACE FUNC: the calls of FUNC in the host's spool report --functions --json
calls() {
	"$HOST_SPOOL" report --functions --json "$1" >fn.json 2>/dev/null
	json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == '$2')"
}

native="$("$PROG" 8)"
is "$native" "cleanups 32 bad 0" "C, without spool: 4 cleanup handlers per thread, every cancel completes"
spool_run probe -q --exits retaddr -e 'func:pc_*' -o c.trace -- "$PROG" 8
is "$RC $(head -n 1 run.out)" "0 $native" \
	"  --exits retaddr: the program's status and output (handlers run, cancels complete)"
is "$(calls c.trace pc_cleanup)" 32 "  every call of the cleanup handler recorded"
spool_run probe -q --exits retaddr -e 'func:pc_*' -o e.trace -- "$PROG" 6 1
is "$(head -n 1 run.out) $(calls e.trace pc_cleanup)" "cleanups 24 bad 0 24" \
	"  pthread_exit alone: 24 handlers run, 24 calls recorded"

A64CXX="${CROSS:-aarch64-linux-gnu-}g++"
if ! command -v "$A64CXX" >/dev/null ||
	! "$A64CXX" --sysroot="$QEMU_LD_PREFIX" -O2 -g -pthread -o cx \
		"$SRC/tests/progs/cxx/probe_cancel.cpp" 2>cxx.err; then
	skip 7 "no $A64CXX (scripts/deps.sh --arm64), or probe_cancel.cpp does not build: $(head -n 3 cxx.err 2>/dev/null)"
	done_testing
	exit 0
fi
cnative="$(./cx 100 3)"
like "$cnative" '^s -100 catches 100 dtors [0-9]+ cleanups 3 forced 3$' \
	"C++, without spool: every catch, cleanup handler and forced-unwind catch runs"
spool_run probe --list --exits retaddr -e 'func:cx_*' -e 'func:*cx_*' ./cx
like "$ERR" 'can throw C\+\+ exceptions \(.*libstdc\+\+.*\), which cannot unwind' \
	"  --list: the program can throw (its libstdc++, found though no spec names it): said"
is "$(echo "$OUT" | grep -cE ' exit +retaddr ')" 0 "  and no exit goes through the return address"
spool_run probe -q --exits retaddr -e 'func:cx_*' -e 'func:*cx_*' -o x.trace -- ./cx 100 3
is_rc 0 "  spool probe --exits retaddr on every function: the program's status"
is "$(head -n 1 run.out)" "$cnative" "  its output as without spool (destructors, catches, cancels)"
is "$(calls x.trace cx_cleanup) $(calls x.trace 'cx_catch(int)')" "3 100" \
	"  the cleanup handler's and the catching function's calls recorded"
"$HOST_SPOOL" report --functions --json x.trace >fx.json 2>/dev/null
is "$(json fx.json "[f.get('no_exit', 0) for f in d['functions'] if f['name'] == 'cx_catch(int)'][0]")" 0 \
	"  the catching function's exits all seen"

done_testing
