#!/bin/bash
# SPDX-License-Identifier: MIT
# 362-probe-retaddr-cancel.t - pthread_cancel, pthread_exit and C++
# exceptions through frames whose return addresses spool swapped
# (--exits retaddr; doc/probe.md, "Exits through the return address"): the
# unwinder finds the real frames and the program behaves as natively, every
# cleanup handler, destructor and catch block runs and each cancel
# completes; and spool records every call the unwinding makes. Launched:
# tests/progs/probe_cancel (C: cleanup handlers in four frames, threads
# cancelled in read() or ending by pthread_exit from the deepest frame), and
# tests/progs/cxx/probe_cancel.cpp built with g++ -O2 (exceptions caught
# five frames up, a cancel unwinding destructors and a catch of
# abi::__forced_unwind that rethrows). The cleanup handler's calls equal
# the program's count: the ones made while pthread_exit unwinds were not
# recorded (the agent ended the thread's recording before glibc ran them).
# Attached (the agent is dlopen'ed, its unwinder hooks not bound: glibc's
# unwinder walks the trampoline by its CFI): the C program attached while
# it cancels and exits threads runs to its end with every handler run.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_cancel"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
plan 15

# calls TRACE FUNC: the calls of FUNC in spool report --functions --json
calls() {
	"$SPOOL" report --functions --json "$1" >fn.json 2>/dev/null
	json fn.json "sum(f['calls'] for f in d['functions'] if f['name'] == '$2')"
}

native="$("$PROG" 8)"
is "$native" "cleanups 32 bad 0" "natively: 4 cleanup handlers per thread, every cancel completes"
spool_run probe --list --exits retaddr -e 'func:pc_*' "$PROG"
is "$(echo "$OUT" | grep -cE '^pc_(leaf|mid|top) +exit +retaddr')" 3 \
	"  --exits retaddr: pc_leaf, pc_mid and pc_top return through the swapped address"
spool_run probe -q --exits retaddr -e 'func:pc_*' -o c.trace -- "$PROG" 8
is_rc 0 "spool probe --exits retaddr: the program's status"
is "$(head -n 1 run.out)" "$native" "  its output as natively (handlers run, cancels complete)"
check_sanitizer run.err "spool probe --exits retaddr"
is "$(calls c.trace pc_cleanup)" 32 "  every call of the cleanup handler recorded (those of pthread_exit's unwinding too)"
spool_run probe -q --exits retaddr -e 'func:pc_*' -o e.trace -- "$PROG" 6 1
is "$(head -n 1 run.out) $(calls e.trace pc_cleanup)" "cleanups 24 bad 0 24" \
	"  pthread_exit alone: 24 handlers run, 24 calls recorded"

CXX="$(command -v g++ || true)"
if [ -z "$CXX" ] || ! "$CXX" -O2 -g -pthread -o cx "$REPO/tests/progs/cxx/probe_cancel.cpp" 2>cxx.err; then
	skip 5 "no g++, or probe_cancel.cpp does not build: $(head -n 3 cxx.err 2>/dev/null)"
else
	cnative="$(./cx 100 3)"
	like "$cnative" '^s -100 catches 100 dtors [0-9]+ cleanups 3 forced 3$' \
		"C++ natively: every catch, cleanup handler and forced-unwind catch runs"
	spool_run probe -q --exits retaddr -e 'func:cx_*' -e 'func:*cx_*' -o x.trace -- ./cx 100 3
	is_rc 0 "  spool probe --exits retaddr on every function: the program's status"
	is "$(head -n 1 run.out)" "$cnative" "  its output as natively (destructors, catches, cancels)"
	is "$(calls x.trace cx_cleanup) $(calls x.trace 'cx_catch(int)')" "3 100" \
		"  the cleanup handler's and the catching function's calls recorded"
	spool_run report --functions --json x.trace
	echo "$OUT" >fx.json
	is "$(json fx.json "[f.get('no_exit', 0) for f in d['functions'] if f['name'] == 'cx_catch(int)'][0]")" 0 \
		"  the catching function's exits all seen (its address swapped again after the catch)"
fi

# attached: the C program cancels and exits threads while spool comes and goes
"$PROG" 300 >att.out 2>&1 &
PID=$!
sleep 0.3
spool_run probe -p "$PID" --exits retaddr -e 'func:pc_*' --duration 1s -o a.trace
is_rc 0 "attached with --exits retaddr for 1 s, detached"
wait "$PID"
is "$? $(cat att.out)" "0 cleanups 1200 bad 0" "  the program ends as natively: every handler run, every cancel complete"
leaf="$(calls a.trace pc_leaf)"
clean="$(calls a.trace pc_cleanup)"
num_cmp "$leaf" -gt 0 "  threads probed while attached ($leaf)"
ok "  4 handler calls recorded per thread (the two threads at the attach and the detach aside: $clean for $leaf)" \
	test "$clean" -ge $((4 * leaf - 4)) -a "$clean" -le $((4 * leaf + 4))

done_testing
