#!/bin/bash
# SPDX-License-Identifier: MIT
# 111-cxx-probe-names.t - func:, var:, assert: and time: probes by the C++
# names a user writes, on a multi-file C++ program (tests/real/data/shop:
# namespaces, a class with a mutex and std::map, a function returning
# std::string, three threads) built with g++ -g -O1 as a distribution
# builds it (a Debian -dbgsym package is not reachable here). Pins two bugs
# found that way:
#   - a function returning std::string is "summary[abi:cxx11](...)"
#     demangled: func:/time:/var: by "shop::report::summary" found nothing;
#   - a parameter of a method whose first statement is inlined library code
#     (std::lock_guard): dwarf_getscopes goes from the inlined code to its
#     abstract definition, not to the method, so "no variable 'qty'".
. "$(dirname "$0")/lib.sh"
need_progs g++

plan 14

SRC="$REPO/tests/real/data/shop"
g++ -g -O1 -pthread -o shop "$SRC/main.cpp" "$SRC/inventory.cpp" "$SRC/report.cpp" 2>gxx.err
is "$?" 0 "the shop program builds with g++ -g -O1"
N=50
native="$(./shop $N)"

# --- func: by namespace::class::* ---
spool_run probe -e 'func:shop::Inventory::*' -e 'func:shop::report::summary' -o f.trace -- ./shop $N
is "$RC:$OUT" "0:$native" "func:shop::Inventory::* and func:shop::report::summary: output unchanged"
spool_run report --functions f.trace
like "$OUT" "shop::Inventory::add\\(.*\\) +$((3 * N)) " "  Inventory::add: $((3 * N)) calls (3 threads x $N)"
like "$OUT" "shop::Inventory::take\\(.*\\) +$((3 * N)) " "  Inventory::take: $((3 * N)) calls"
like "$OUT" "shop::report::summary\\[abi:cxx11\\]\\(.*\\) +3 " \
	"  report::summary (returns std::string: [abi:cxx11]), found by its plain name: 3 calls"

# --- var:/assert: on a parameter, at an entry where inlined code starts ---
spool_run probe -e 'var:int:qty@shop::Inventory::take:entry' \
	-e 'assert:qty > 0@shop::Inventory::take:entry' -o v.trace -- ./shop $N
is "$RC:$OUT" "0:$native" "var:/assert: on take's parameter qty (-O1, lock_guard inlined first): placed, output unchanged"
spool_run report --vars v.trace
like "$OUT" "variable qty \\(int\\) at shop::Inventory::take\\(.*:entry: $((3 * N)) values, min 1, max 1" \
	"  qty: $((3 * N)) values, each 1 (what worker passes)"
like "$OUT" "assertion qty > 0 at shop::Inventory::take.*: $((3 * N)) true, 0 false" \
	"  the assertion: $((3 * N)) true, 0 false"

# --- var:/time: on the std::string-returning function, a static member ---
spool_run probe -e 'var:auto:round@shop::report::summary' -e 'time:shop::report::summary' \
	-e 'var:int:shop::Inventory::instances@main:exit' -o t.trace -- ./shop $N
is "$RC:$OUT" "0:$native" "var:/time: on shop::report::summary, a static member at main:exit: output unchanged"
spool_run report --vars t.trace
like "$OUT" "variable round \\(int\\) at shop::report::summary.*: 3 values, min 0, max 2" \
	"  round: 3 values, 0 to 2"
like "$OUT" "time:shop::report::summary +3 " "  time:shop::report::summary: 3 calls timed"
like "$OUT" "variable shop::Inventory::instances \\(int\\) at main:exit: 1 values, min 1, max 1" \
	"  shop::Inventory::instances at main's exit: 1"

# --- a name that is not there: refused, saying which ---
spool_run probe -e 'var:int:qty@shop::Inventory::nope' -o n.trace -- ./shop $N
is "$RC" 1 "a var: probe on a function that does not exist: exit 1"
like "$ERR" "no function shop::Inventory::nope in " "  spool names the function it did not find"

done_testing
