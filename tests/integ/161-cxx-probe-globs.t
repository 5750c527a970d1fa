#!/bin/bash
# SPDX-License-Identifier: MIT
# 161-cxx-probe-globs.t - probe specs match C++ functions as a user names
# them (issue 17): by the demangled name without its parameter list
# (func:transfer), with a class and a glob (func:'Bank::transfer*': "::" is
# not the LIB: separator), with the parameters, and by the mangled symbol
# (func:_Z8transferiil); args: too. func: and args: of one function
# combine, in either order.
. "$(dirname "$0")/lib.sh"
plan 13
if ! command -v g++ >/dev/null; then
	skip 13 "no g++"
	done_testing
	exit 0
fi
g++ -g -O2 -fno-omit-frame-pointer -pthread -o bank "$REPO/tests/progs/cxx/bank.cpp" 2>cc.err
ok "the C++ bank program builds" test -x bank || diag "$(cat cc.err)"
g++ -g -O0 -fno-omit-frame-pointer -pthread -o bank0 "$REPO/tests/progs/cxx/bank.cpp" 2>cc.err

calls() { # calls NAME: the calls column of NAME in the function report
	awk -v n="$1" 'index($0, n) == 1 { s = substr($0, length(n) + 1); split(s, a, " "); print a[1]; exit }' run.err
}
spool_run probe -o a.trace -e func:transfer -- ./bank 2 50
is "$RC $(calls 'transfer(int, int, long)')" "0 10" "func:transfer matches the free function transfer(int, int, long)"
is "$(calls 'Bank::transfer(int, int, long)')" "" "  and not Bank::transfer (the whole name is matched)"
spool_run probe -o b.trace -e 'func:Bank::transfer*' -- ./bank 2 50
is "$RC $(calls 'Bank::transfer(int, int, long)')" "0 100" "func:'Bank::transfer*' matches the method"
unlike "$ERR" "bad function pattern|library" "  '::' is not taken for LIB:"
spool_run probe -o c.trace -e 'func:Bank::transfer(int, int, long)' -- ./bank 2 50
is "$RC $(calls 'Bank::transfer(int, int, long)')" "0 100" "func: with the parameter list matches"
spool_run probe -o d.trace -e 'func:_Z8transferiil' -- ./bank 2 50
is "$RC $(calls 'transfer(int, int, long)')" "0 10" "func:_Z8transferiil (mangled) matches"
spool_run probe -o e.trace -e 'func:*transfer*' -- ./bank 2 50
is "$(calls 'transfer(int, int, long)') $(calls 'Bank::transfer(int, int, long)')" "10 100" \
	"func:*transfer* matches both"
spool_run probe -o g.trace -e 'args:Bank::transfer' -- ./bank0 2 50
like "$ERR" "variable amount \\(long\\) at Bank::transfer\\(int, int, long\\):entry: 100 values" \
	"args:Bank::transfer reads the method's arguments (named demangled)"

# func: and args: at one point combine (tests/integ/215-217 check the values)
spool_run probe -o h.trace -e 'func:*transfer*' -e 'args:_Z8transferiil' -- ./bank 2 50
is "$RC $(calls 'transfer(int, int, long)')" "0 10" \
	"func: then args: of one function: the calls are counted"
like "$ERR" "variable amount \\(long\\) at transfer\\(int, int, long\\):entry: 10 values" \
	"  and the arguments read"
spool_run probe -o i.trace -e 'args:_Z8transferiil' -e 'func:*transfer*' -- ./bank 2 50
is "$(calls 'transfer(int, int, long)') $(grep -c 'variable amount (long) at transfer(int, int, long):entry: 10 values' run.err)" "10 1" \
	"args: then func:: both too"
is "$(calls 'Bank::transfer(int, int, long)')" "100" "  the other function matched by func: is timed"
done_testing
