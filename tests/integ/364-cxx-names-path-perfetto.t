#!/bin/bash
# SPDX-License-Identifier: MIT
# 364-cxx-names-path-perfetto.t - C++ names where 160 does not look (issue
# 17: "demangle everywhere a name is shown"): `spool path --check` lists
# the functions never entered as a C++ programmer names them, with their
# class and parameters, from DWARF (whose own name of a destructor is a
# bare "~unique_ptr") and from the symbol table of a program built without
# -g (where they were mangled: _ZNSt10unique_ptr...D1Ev); its JSON gives
# both forms (function, symbol). The thread path itself and the Perfetto
# export name the functions and lock sites demangled too.
. "$(dirname "$0")/lib.sh"

if ! command -v g++ >/dev/null; then
	echo "1..0 # SKIP no g++"
	exit 0
fi
plan 11

g++ -g -O2 -fno-omit-frame-pointer -pthread -o bank "$REPO/tests/progs/cxx/bank.cpp" 2>cc.err &&
	g++ -O2 -fno-omit-frame-pointer -pthread -o bank-nog "$REPO/tests/progs/cxx/bank.cpp" 2>>cc.err
ok "the C++ bank program builds, with and without -g" test -x bank-nog || diag "$(cat cc.err)"

# the destructor of std::thread's unique_ptr<_State> is never entered: the
# thread's state is released by the thread itself in libstdc++
UPTR='std::unique_ptr<std::thread::_State, std::default_delete<std::thread::_State> >::~unique_ptr()'
for b in bank bank-nog; do
	spool_run path -q -o "$b.trace" -w "$b.path" -- "./$b" 2 5
	spool_run path --check -w "$b.check" "$b.trace"
	src=$([ "$b" = bank ] && echo DWARF || echo "symbol table")
	like "$(cat "$b.check" 2>/dev/null)" "never entered: ${UPTR//[()<>]/.}" \
		"$b ($src): --check names a never-entered destructor with its class and parameters" ||
		diag "$(cat "$b.check" 2>/dev/null)"
	unlike "$(cat "$b.check" "$b.path" 2>/dev/null)" "_Z[A-Z0-9]" "  no mangled name in --check or in the path"
done
like "$(cat bank.path 2>/dev/null)" "Bank::transfer\\(int, int, long\\) +lock:acct" \
	"the thread path: Bank::transfer(int, int, long) and its lock acct"

spool_run path --check --json -w check.json bank-nog.trace
is "$(json check.json "[f['symbol'] for f in d['never_entered'] if f['function'] == '$UPTR'][0]")" \
	"_ZNSt10unique_ptrINSt6thread6_StateESt14default_deleteIS1_EED1Ev" \
	"--check --json: the demangled name as function, the mangled one as symbol"

# Perfetto: the function and lock names are in its interned strings
spool_run probe -q -o f.trace -e 'func:*transfer*' -- ./bank 2 50
spool_run export --perfetto -w f.pftrace f.trace
is_rc 0 "spool export --perfetto of a C++ program's function probes"
strs=$(strings -n 6 f.pftrace 2>/dev/null)
like "$strs" "Bank::transfer\\(int, int, long\\)" "  functions demangled"
like "$strs" "std::lock<std::mutex, std::mutex>" "  lock sites demangled"
unlike "$strs" "_ZN4Bank|_ZSt4lock|_ZL4acct" "  no mangled name"

done_testing
