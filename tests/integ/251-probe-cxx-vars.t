#!/bin/bash
# SPDX-License-Identifier: MIT
# 251-probe-cxx-vars.t - var:, assert: and time: specs name C++ functions
# and variables as a user writes them (issue 17): the "::" of
# ledger::Book::add is part of the name, not the ':' before a point
# (:entry, :exit, :LINE) or after a library; a namespace variable
# (ledger::posted) and a static member (ledger::Book::entries) are read by
# their qualified names, in var: and in an assertion; an overloaded name
# (ledger::scale) is refused naming the overloads, and taken with its
# parameter list. The values are the program's: after call k of add(k),
# entries is k and posted k(k+1)/2.
. "$(dirname "$0")/lib.sh"
plan 15
if ! command -v g++ >/dev/null; then
	skip 15 "no g++"
	done_testing
	exit 0
fi
g++ -g -O0 -fno-omit-frame-pointer -o probe_ns "$REPO/tests/progs/cxx/probe_ns.cpp" 2>cc.err
ok "the C++ program builds" test -x probe_ns || diag "$(cat cc.err)"

spool_run probe -o a.trace -e 'var:long:amount@ledger::Book::add' \
	-e 'var:auto:ledger::posted@ledger::Book::add:exit' \
	-e 'var:auto:ledger::Book::entries@ledger::Book::add:exit' \
	-e 'assert:ledger::Book::entries <= ledger::posted@ledger::Book::add:exit' \
	-e 'assert:amount > 5@ledger::Book::add:entry' \
	-e 'time:ledger::Book::add' -- ./probe_ns 10
is "$RC:$OUT" "0:total 55 entries 10 posted 55 s 310 d 22.5" "the specs are taken, the program runs as unprobed"
unlike "$ERR" "want var:|want assert:|is not \\[LIB:\\]FUNC|no function|error" "  none is refused"
like "$ERR" "variable amount \\(long\\) at ledger::Book::add\\(long\\):entry: 10 values, min 1, max 10" \
	"var:long:amount@ledger::Book::add reads the argument at each call"
like "$ERR" "variable ledger::posted \\(long\\) at ledger::Book::add\\(long\\):exit: 10 values, min 1, max 55" \
	"var:auto:ledger::posted (a namespace variable) at :exit"
like "$ERR" "variable ledger::Book::entries \\(long\\) at ledger::Book::add\\(long\\):exit: 10 values, min 1, max 10" \
	"var:auto:ledger::Book::entries (a static member) at :exit"
like "$ERR" "assertion ledger::Book::entries <= ledger::posted at ledger::Book::add\\(long\\):exit: 10 true, 0 false" \
	"an assertion on qualified names"
like "$ERR" "assertion amount > 5 at ledger::Book::add\\(long\\):entry: 5 true, 5 false" \
	"an assertion at ledger::Book::add:entry"
like "$ERR" "time:ledger::Book::add +10 " "time:ledger::Book::add times the 10 calls"

# a line of the method: the line of "entries++;"
line=$(grep -n 'entries++;' "$REPO/tests/progs/cxx/probe_ns.cpp" | cut -d: -f1)
spool_run probe -o b.trace -e "var:auto:amount@ledger::Book::add:$line" -- ./probe_ns 10
like "$ERR" "variable amount \\(long\\) at ledger::Book::add\\(long\\):$line: 10 values" \
	"var:...@ledger::Book::add:$line: a line of the method"

spool_run probe -o c.trace -e 'var:long:v@ledger::scale' -- ./probe_ns 10
num_cmp "$RC" -ne 0 "var:...@ledger::scale (two overloads) is refused"
like "$ERR" "ledger::scale names several functions \\(ledger::scale\\((long|double)\\) .*, ledger::scale\\((long|double)\\).*give the one with its parameter list" \
	"  naming the overloads and what to give"
spool_run probe -o d.trace -e 'var:long:v@ledger::scale(long)' -- ./probe_ns 10
like "$ERR" "variable v \\(long\\) at ledger::scale\\(long\\):entry: 10 values, min 0, max 9" \
	"var:long:v@'ledger::scale(long)' takes that overload"

# LIB:ns::f:exit: the first single ':' ends the library's name
spool_run probe --list -e 'var:long:x@libc.so*:nosuch::f:exit' ./probe_ns
like "$ERR" "no function nosuch::f in the libraries matching 'libc.so\\*'" \
	"LIB:nosuch::f:exit splits as library, function, point"
# a variable the function does not have: named with the function as the
# user wrote it, not its mangled symbol
spool_run probe -o n.trace -e 'var:long:nosuch@ledger::Book::add' -- ./probe_ns
like "$ERR" "no variable 'nosuch' in ledger::Book::add\(long\)" \
	"an unknown variable: the error names ledger::Book::add(long), not _ZN..."
done_testing
