#!/bin/bash
# SPDX-License-Identifier: MIT
# 269-a64-probe-sigown.t - aarch64 BRK probes in programs that use SIGTRAP
# and signal masks themselves (src/arch/aarch64/a64_agent_sig.c): the
# program's own sigaction(SIGTRAP) and sigprocmask/pthread_sigmask are
# kept apart from the probes' BRKs, as x86-64 keeps them from its int3s.
# tests/progs/probe_sigown.c is linked with tests/probe/a64_fill.c (no
# trampoline page within reach: every probe of the program is a BRK) and
# run under qemu-user:
#   - trap: its own SIGTRAP handler (signal(), then sigaction()), raises
#     and breakpoints of its own: output and status as native, the old
#     actions its own, every call of the probed function counted;
#   - block: every signal blocked, in 3 threads (the mask read back holds
#     SIGTRAP, a new thread inherits it), a SIGTRAP raised while blocked
#     held until unblocked: as native, every call counted; the same with a
#     custom handler (--handler: the fault signals are kept too), and with
#     trampolines (the plain build);
#   - die: SIGTRAP blocked, then a breakpoint of its own: killed by SIGTRAP
#     as natively, the calls before counted.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"

plan 19

A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
P="$PROGS/probe_sigown"
if ! command -v "$A64CC" >/dev/null || [ ! -x "$P" ] || ! command -v python3 >/dev/null; then
	skip 19 "no $A64CC or python3, or $P is not built"
	done_testing
	exit 0
fi
CC=("$A64CC" "--sysroot=$QEMU_LD_PREFIX")
ok "probe_sigown linked with the space-filling library cross-builds" \
	sh -c "${CC[*]} -shared -fPIC -O2 -o libfill.so $SRC/tests/probe/a64_fill.c &&
		${CC[*]} -std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE -o sfill \
		$SRC/tests/progs/probe_sigown.c -L. -Wl,--no-as-needed -lfill \
		-Wl,-rpath,'\$ORIGIN' -lpthread &&
		${CC[*]} -shared -fPIC -O2 -I$SRC/include -o count.so $SRC/tests/probe/handler_count.c"

N=60
# calls of work in TRACE (the host's spool reads the board's trace)
calls() {
	host_run report --functions --json "$1"
	python3 -c 'import json,sys; print(" ".join(str(f["calls"]) for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "work"))' run.out
}

# --- the program's own SIGTRAP handler -----------------------------------------
native="$(./sfill trap $N 2>/dev/null)"
like "$native" $'^work [0-9]+\nhandled 12\nold_ok 1$' "trap: natively, its handler sees its 12 traps"
SPOOL_DEBUG=1 spool_run probe -e 'func:work' -o trap.trace -- ./sfill trap $N
is "$RC:$OUT" "0:$native" "trap under BRK probes: output and status as native (its handler saw its own traps only, old actions its own)"
like "$ERR" "probe [0-9]+: a BRK at 0x" "  the probes are BRKs"
like "$ERR" "2 of 2 probes placed, 0 events lost" "  both placed, nothing lost"
is "$(calls trap.trace)" "$N" "  every call of work counted ($N)"

# --- every signal blocked ------------------------------------------------------
native="$(./sfill block $N 2>/dev/null)"
like "$native" $'^view_ok 1\nwork [0-9]+\nthread_view_ok 1\nbefore 0\nafter 1$' \
	"block: natively, the mask holds SIGTRAP, the raised one waits for the unblock"
spool_run probe -e 'func:work' -o block.trace -- ./sfill block $N
is "$RC:$OUT" "0:$native" "block under BRK probes: output and status as native (the view of the mask, in new threads too; the SIGTRAP held)"
like "$ERR" "2 of 2 probes placed, 0 events lost" "  both placed, nothing lost"
is "$(calls block.trace)" "$((3 * N))" "  every call of work from the 3 threads counted ($((3 * N)))"
spool_run probe -q --handler ./count.so -e 'func:work' -o blockh.trace -- ./sfill block $N
is "$RC:$OUT" "0:$native" "block with a custom handler (SIGSEGV kept too): output and status as native"
is "$(grep '^handler pre' run.err | awk '{ print $3, $5 }')" "$((3 * N)) $((3 * N))" \
	"  its pre and post ran once per call and return ($((3 * N)))"
native_plain="$("$P" block $N 2>/dev/null)"
spool_run probe -e 'func:work' -o plain.trace -- "$P" block $N
is "$RC:$OUT" "0:$native_plain" "block with trampolines (no BRK, nothing kept): as native"
is "$(calls plain.trace)" "$((3 * N))" "  every call counted"

# --- SIGTRAP blocked, then its own breakpoint -----------------------------------
./sfill die $N >die.out 2>/dev/null
nrc=$?
is "$nrc:$(cat die.out)" "133:work $(grep '^work' die.out | cut -d' ' -f2)" \
	"die: natively, killed by SIGTRAP (status 133) after its output"
spool_run probe -e 'func:work' -o die.trace -- ./sfill die $N
is "$OUT" "$(cat die.out)" "die under BRK probes: the same output"
like "$ERR" "killed by signal 5 " "  killed by SIGTRAP, as natively (spool says so)"
unlike "$OUT" "not killed" "  its own breakpoint was not stepped over"
is "$(calls die.trace)" "$N" "  the calls before counted ($N)"

done_testing
