#!/bin/bash
# SPDX-License-Identifier: MIT
# 196-probe-retaddr-cxx.t - C++ exceptions through functions whose exits
# are hooked through the return address (doc/probe.md, "Exits through the
# return address"): the unwinder must see the real return addresses, or it
# ends in std::terminate. tests/progs/cxx/probe_rethrow.cpp, built here with
# g++ -O2, throws through frames with destructors (a cleanup, then
# _Unwind_Resume), catches and rethrows, and catches a few frames up. With
# --exits retaddr on every function and by default: exit 0, the program's
# output (its sums, catches and destructor runs) unchanged, calls equal its
# own counts, and the function that catches has every exit (its return
# address is swapped again once the handler is entered). A program with
# the C++ runtime linked in statically keeps patched exits (said).
. "$(dirname "$0")/lib.sh"

CXX="$(command -v g++ || command -v c++ || true)"
if [ -z "$CXX" ]; then
	echo "1..0 # SKIP no C++ compiler"
	exit 0
fi
plan 14

if ! "$CXX" -O2 -g -o rx "$REPO/tests/progs/cxx/probe_rethrow.cpp"; then
	fail "probe_rethrow.cpp builds at -O2"
	done_testing
	exit
fi
native="$(./rx 300)"

spool_run probe --list --exits retaddr -e 'func:rx_*' ./rx
like "$OUT" '^rx_outer\(long\) +exit +retaddr ' "--exits retaddr: the catching function's exits are swapped"
like "$OUT" '^rx_leaf\(long\) +exit +retaddr ' "... and the throwing function's"
unlike "$OUT" 'cold\]? +exit +retaddr' "... but never a .cold part's (it is not entered by a call)"

for mode in retaddr auto; do
	spool_run probe -q --exits "$mode" -e 'func:rx_*' -- ./rx 300
	is_rc 0 "$mode: exceptions through swapped frames: exit 0 (no std::terminate)" || show_run
	is "$OUT" "$native" "$mode: the program's output is its own"
	spool_run report --functions --json spool.trace
	echo "$OUT" >funcs.json
	got="$(json funcs.json 'sorted("%s %d" % (f["name"].split("(")[0], f["calls"]) for f in d["functions"] if "cold" not in f["name"])')"
	is "$got" "$(echo "$native" | grep '^rx_' | sort)" \
		"$mode: calls per function equal the program's own counts"
	is "$(json funcs.json '[f["no_exit"] for f in d["functions"] if f["name"] == "rx_outer(long)"][0]') $(json funcs.json 'd["unmatched_exits"]')" \
		"0 0" "$mode: the catching function has all its exits, every exit its entry"
done

# the same through a frame left by a longjmp out of a signal handler is in
# 195; here an exception that nothing catches still ends as natively
cat >unc.cc <<'CC'
#include <stdexcept>
__attribute__((noinline)) int unc_throw(int i) { if (i > 2) throw std::runtime_error("x"); return i; }
__attribute__((noinline)) int unc_mid(int i) { return unc_throw(i) + 1; }
int main() { int s = 0; for (int i = 0; i < 5; i++) s += unc_mid(i); return s; }
CC
"$CXX" -O2 -o unc unc.cc
./unc 2>/dev/null
nrc=$?
spool_run probe -q --exits retaddr -e 'func:unc_*' -- ./unc
is "$RC" "$nrc" "an exception nothing catches ends the program as natively (status $nrc)"

# The C++ runtime linked in (-static-libstdc++ -static-libgcc): its throw
# calls the unwinder directly, past the agent's hooks; spool says so and
# patches the rets instead, and the program runs as natively.
if "$CXX" -O2 -static-libstdc++ -static-libgcc -o rxs "$REPO/tests/progs/cxx/probe_rethrow.cpp" 2>/dev/null; then
	spool_run probe --exits retaddr -e 'func:rx_*' -- ./rxs 300
	is "$RC $OUT" "0 $native" "a static C++ runtime: exit 0, the program's output"
	like "$ERR" "can throw C\\+\\+ exceptions past spool's unwinder hooks \(__cxa_throw\): exits are patched" \
		"... its exits are patched, and spool says why"
else
	skip 2 "no static libstdc++"
fi

done_testing
