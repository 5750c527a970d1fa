#!/bin/bash
# SPDX-License-Identifier: MIT
# 160-cxx-names.t - C++ names as a C++ programmer writes them (issue 17):
# the lock report of a g++ program (std::thread, std::mutex, a Bank class)
# names its static mutex "acct", not "_ZL4acct", and its call sites
# "std::lock<std::mutex, ...>", not "_ZSt4lock..."; JSON gives both forms;
# function reports demangle too, give the executable's path as module (not
# "-") and callers whole ("<- libstdc++.so.6", not "<- libstdc").
. "$(dirname "$0")/lib.sh"
plan 15
if ! command -v g++ >/dev/null; then
	skip 15 "no g++"
	done_testing
	exit 0
fi
g++ -g -O2 -fno-omit-frame-pointer -pthread -o bank "$REPO/tests/progs/cxx/bank.cpp" 2>cc.err
ok "the C++ bank program builds" test -x bank || diag "$(cat cc.err)"

spool_run locks -o l.trace -- ./bank 4 500
is_rc 0 "spool locks of the C++ bank program"
like "$ERR" "(^|\n)  acct +mutex " "  its static std::mutex is named acct"
like "$ERR" "std::lock<std::mutex, std::mutex>" "  call sites are demangled (std::lock<std::mutex, std::mutex>)"
unlike "$ERR" "_ZL4acct|_ZSt4lock" "  no mangled name in the report"

report_json l.trace
is "$(json report.json '[l["symbol"] for l in d["locks"] if l["name"] == "acct"][0]')" "_ZL4acct" \
	"  JSON: name acct, symbol _ZL4acct"
is "$(json report.json 'len([l for l in d["locks"] if l["symbol"] is None and l["name"].startswith("_Z")])')" 0 \
	"  JSON: no lock named by a mangled name"

spool_run probe -o f.trace -e 'func:*transfer*' -- ./bank 2 50
is_rc 0 "spool probe -e 'func:*transfer*'"
like "$ERR" "Bank::transfer\\(int, int, long\\) +100 " "  the report names Bank::transfer(int, int, long)"
spool_run report --functions --json f.trace
is "$(json run.out '[f["symbol"] for f in d["functions"] if f["name"] == "Bank::transfer(int, int, long)"][0]')" \
	"_ZN4Bank8transferEiil" "  JSON: name demangled, symbol mangled"
is "$(json run.out '[f["module"] for f in d["functions"]][0]')" "$PWD/bank" \
	"  JSON: module is the executable's path, not -"
# std::thread's _M_run is called by libstdc++ (stripped: named by its file)
spool_run probe -o s.trace -e 'func:*_M_run*' -- ./bank 2 5
like "$ERR" "<- (libstdc\\+\\+\\.so[.0-9]*|execute_native_thread_routine) " \
	"  a caller in libstdc++ is named whole, not cut at '+'"
spool_run probe -q -o c.trace -e 'block:*transfer*' -- ./bank 2 5
spool_run report --coverage c.trace
like "$OUT" "(^|\n)Bank::transfer\\(int, int, long\\) +10 " "coverage report: demangled names"
spool_run export --chrome -w f.json f.trace
like "$(cat f.json 2>/dev/null)" '"name":"Bank::transfer\(int, int, long\)"' "Chrome export: demangled function names"
spool_run export --chrome -w l.json l.trace
like "$(cat l.json 2>/dev/null)" 'std::lock<std::mutex, std::mutex>' "  and demangled lock sites"
done_testing
