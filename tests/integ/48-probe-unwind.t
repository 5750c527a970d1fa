#!/bin/bash
# SPDX-License-Identifier: MIT
# 48-probe-unwind.t - a C++ program whose function throws through a probed
# caller was killed by std::terminate (exit 134) under `spool probe -e
# func:...`: the caller's entry probe displaced the call at its start into
# the trampoline, so the callee's return address pointed into the
# trampoline, which no unwinder knows. The call now runs as "push the
# original return address; jmp": backtraces and exceptions walk the
# program's own frames. tests/progs/probe_unwind counts backtrace()'s
# frames below a function whose first instruction is a call; a small C++
# program (built here when a C++ compiler is installed) throws through one.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_unwind"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 7

native="$("$PROG" 100)"
spool_run probe --list -e 'func:unwind_outer' "$PROG"
like "$OUT" '^unwind_outer +entry +jump .*call ' "--list: the entry's jump displaces the call"
spool_run probe -q -e 'func:unwind_outer' -- "$PROG" 100
is_rc 0 "backtrace through a probed call: exit 0" || show_run
is "$OUT" "$native" "backtrace() finds every frame, as natively"
spool_run report --functions --json spool.trace
calls="$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(" ".join("%s=%d" % (f["name"], f["calls"]) for f in d["functions"]), d.get("unmatched_exits", 0))' "$OUT")"
is "$calls" "unwind_outer=100 0" "every call was recorded, entry and exit"

CXX="$(command -v c++ || command -v g++ || true)"
if [ -z "$CXX" ]; then
	skip 3 "no C++ compiler"
	done_testing
	exit
fi
cat >thrower.cc <<'CC'
#include <cstdio>
#include <stdexcept>
struct G { int *p; ~G() { (*p)++; } };
__attribute__((noinline)) int thrower(int i) { if (i % 3 == 0) throw std::runtime_error("x"); return i; }
__attribute__((noinline)) int work(int i, int *c) { G g{c}; return thrower(i) * 2; }
int main() {
	int c = 0;
	long s = 0;
	for (int i = 0; i < 300; i++) {
		try { s += work(i, &c); } catch (const std::exception &) { s += 7; }
	}
	printf("%ld %d\n", s, c);
}
CC
"$CXX" -O2 -o thrower thrower.cc
native="$(./thrower)"
spool_run probe -q -e 'func:_Z*' -- ./thrower
is_rc 0 "C++ exceptions through probed functions: exit 0" || show_run
is "$OUT" "$native" "C++ exceptions through probed functions: output unchanged"
spool_run probe -q -e 'block:_Z*' -- ./thrower
is "$RC $OUT" "0 $native" "C++ exceptions through block probes: output unchanged"

done_testing
