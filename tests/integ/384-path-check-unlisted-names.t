#!/bin/bash
# SPDX-License-Identifier: MIT
# 384-path-check-unlisted-names.t - `spool path --check` of a run whose
# entries came from probes, on a C++ program whose DWARF function table
# lacks some probed functions (a compile unit built without -g): a function
# never entered there is named as the rest of spool path names it, demangled
# (helpers::Pool::drain(long)), not by its raw symbol (it said
# _ZN7helpers4Pool5drainEl); its JSON gives both forms, as 364 checks for
# the functions the table holds. A stripped build names them FILE+0xOFFSET.
. "$(dirname "$0")/lib.sh"

if ! command -v g++ >/dev/null; then
	echo "1..0 # SKIP no g++"
	exit 0
fi
plan 8

g++ -g -O2 -fno-omit-frame-pointer -pthread -c -o main.o "$REPO/tests/progs/cxx/mixed_main.cpp" 2>cc.err &&
	g++ -O2 -fno-omit-frame-pointer -c -o helper.o "$REPO/tests/progs/cxx/mixed_helper.cpp" 2>>cc.err &&
	g++ -pthread -o mixed main.o helper.o 2>>cc.err && strip -o mixed-s mixed 2>>cc.err
ok "a C++ program, one file with -g and one without, builds (and a stripped copy)" test -x mixed-s ||
	diag "$(cat cc.err)"

spool_run path -q -o m.trace -w m.path -- ./mixed
is_rc 0 "spool path of the program (function entries from probes)"
spool_run path --check -w m.check m.trace
check=$(cat m.check 2>/dev/null)
like "$check" "never entered: helpers::Pool::drain\\(long\\)" \
	"--check: a function the DWARF table lacks is named demangled" || diag "$check"
unlike "$check" "_Z[A-Z0-9]" "  no mangled name in --check"

spool_run path --check --json -w m.json m.trace
is "$(json m.json "[f['symbol'] for f in d['never_entered'] if f['function'] == 'helpers::Pool::drain(long)'][0]")" \
	"_ZN7helpers4Pool5drainEl" "--check --json: the demangled name as function, the mangled one as symbol"
is "$(json m.json "len([f for f in d['never_entered'] if f['function'].startswith('_Z')])")" 0 \
	"  no never-entered function named by its mangled symbol"

# stripped: no symbol covers the functions; they are named FILE+0xOFFSET
spool_run path -q -o s.trace -w s.path -- ./mixed-s
spool_run path --check -w s.check s.trace
like "$(cat s.check 2>/dev/null)" "never entered: mixed-s\\+0x[0-9a-f]+" \
	"stripped: a never-entered function is FILE+0xOFFSET" || diag "$(cat s.check 2>/dev/null)"
unlike "$(cat s.check 2>/dev/null)" "never entered: (0x|_Z)" "  never a bare address or a mangled name"

done_testing
