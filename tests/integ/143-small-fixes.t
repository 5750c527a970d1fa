#!/bin/bash
# SPDX-License-Identifier: MIT
# 143-small-fixes.t - small things a user saw (issue 12, leftovers):
# `-o no/such/dir` said its error twice; `spool probe` that placed no probe
# (its library never loaded; attached to a thread that blocks SIGTRAP with
# only int3 probes) exited 0 as if it had worked; `spool probe -q` still
# printed the "stripped" note; `spool report` of a recording made without
# --lock-events said "locks: none used" (they were not recorded);
# `-e time:F -e args:F` was refused (time: held F's entry; now args: is
# planned first and time: takes its probes), and a pair that cannot share
# (func: with args:) says why.
. "$(dirname "$0")/lib.sh"
plan 17
H="$PROGS/probe_harm"

# --- -o into a directory that does not exist --------------------------------
spool_run locks -q -o no/such/dir -- true
ok "-o no/such/dir fails" test "$RC" != 0
is "$(grep -c 'error' run.err)" 1 "  with one error line" || diag "$ERR"
like "$ERR" "cannot create trace no/such/dir: No such file" "  naming the directory the user gave"

# --- no probe placed --------------------------------------------------------
LIBZ=$(ldconfig -p 2>/dev/null | sed -n 's/.*libz.so.1 (libc6,x86-64) => //p' | head -n 1)
if [ -n "$LIBZ" ] && [ -f "$LIBZ" ]; then
	spool_run probe -q -o z.trace -e "func:$LIBZ:deflate" -- "$H" 5
	is_rc 1 "launch: probes of a library the program never loads: exit 1"
	like "$ERR" "no probe was placed \\(of [0-9]+\\): the program ran unprobed" "  saying no probe was placed"
else
	skip 2 "no libz.so.1"
fi
rm -f stop.now
"$H" 1000 attach stop.now >prog.out &
pid=$!
wait_for ready prog.out 15
spool_run probe -p "$pid" -o za.trace -e 'var:long:x@harm_leaf_i3' -d 2s
is_rc 1 "attach: only int3 probes, on a thread that blocks SIGTRAP: exit 1"
like "$ERR" "pid $pid: no probe could be placed .*detached" "  saying so, and detached at once"
touch stop.now
wait "$pid"
is "$? $(tr '\n' ' ' <prog.out)" "0 ready sum ok mask ok " "  the program runs on unharmed"

# --- -q and the notes on stripped files -------------------------------------
PY=/usr/bin/python3 # Debian's (a pyenv shim in PATH is a script)
[ -x "$PY" ] || PY=$(command -v python3)
spool_run probe -q -o py.trace -e 'func:PyDict_New' -- "$PY" -c 'pass'
if grep -q "probes placed" run.err; then
	unlike "$ERR" "stripped" "probe -q: no note on a stripped file (python3)"
	is "$(grep -vc 'probes placed' run.err)" 0 "  only the summary line"
else
	skip 2 "python3 has no PyDict_New to probe"
fi

# --- a recording without --lock-events --------------------------------------
spool_run record -q -o r.trace -- "$PROGS/lockcount" 2 50
spool_run report r.trace
like "$OUT" "^locks: not recorded \\(spool record writes lock events only with --lock-events\\)" \
	"report of a recording without --lock-events: locks were not recorded"
spool_run report --json r.trace
like "$OUT" '"locks_recorded": false' "  (JSON: locks_recorded false)"
spool_run record -q --lock-events -o r2.trace -- "$PROGS/lockcount" 2 50
spool_run report r2.trace
like "$OUT" "shared_lock" "  with --lock-events the locks are there"

# --- time: and args: of one function ----------------------------------------
time_count() { sed -nE 's/^time:harm_leaf +([0-9]+) .*/\1/p' run.err | head -n 1; }
spool_run probe -o ta.trace -e time:harm_leaf -e args:harm_leaf -- "$H" 5
is_rc 0 "-e time:F -e args:F: placed and run"
is "$(time_count)" 10 "  time: counts every call (5 from C, 5 from the odd caller)"
spool_run probe -o at.trace -e args:harm_leaf -e time:harm_leaf -- "$H" 5
is "$RC $(time_count)" "0 10" "-e args:F -e time:F: the same"
spool_run probe -o fa.trace -e func:harm_leaf -e args:harm_leaf -- "$H" 5
like "$(tr "\n" " " <<<"$ERR")" "harm_leaf +10 .*variable x \\(long\\) at harm_leaf:entry: 10 values.*variable return \\(long\\) at harm_leaf:exit: 10 values" \
	"-e func:F -e args:F share the entry and the ret: both are counted (tests/integ/215-217)"

done_testing
