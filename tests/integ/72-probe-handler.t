#!/bin/bash
# SPDX-License-Identifier: MIT
# 72-probe-handler.t - spool probe --handler: custom pre/post/error handlers
# (include/spool/probe.h) loaded into the target by the agent. A counting
# handler sees every entry and every exit the program makes; a handler that
# faults (NULL dereference) runs the error handler, its probe is removed and
# the program runs on with its own output and status, on a jump probe and on
# an int3 probe; a handler that cannot be loaded is reported.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/probe_calls"
CC="${CC:-cc}"
if [ ! -x "$PROG" ] || ! command -v "$CC" >/dev/null; then
	echo "1..0 # SKIP $PROG is not built or no C compiler"
	exit 0
fi
plan 15

build_so() { # NAME SOURCE
	"$CC" -shared -fPIC -mgeneral-regs-only -O2 -I"$REPO/include" -o "$1" "$REPO/tests/probe/$2"
}
ok "the counting handler builds" build_so count.so handler_count.c
ok "the faulting handler builds" build_so fault.so handler_fault.c
native="$("$PROG" 500)"
# calls the program made to the probed functions, by its own count
total="$(awk '{ s += $2 } END { print s }' <<<"$native")"

# --- counting -----------------------------------------------------------------
spool_run probe -q --handler ./count.so -e 'func:probe_*' -- "$PROG" 500
is_rc 0 "spool probe --handler runs the program and exits with its status"
is "$OUT" "$native" "the program's output is unchanged"
line="$(grep '^handler pre' run.err)"
is "$(awk '{ print $3 }' <<<"$line")" "$total" "pre ran once per call the program made (jump and int3 probes, 2 threads)"
is "$(awk '{ print $5 }' <<<"$line")" "$total" "post ran once per return"

# --- a handler that faults ------------------------------------------------------
spool_run probe -q --handler ./fault.so -e 'func:probe_leaf_add' -- "$PROG" 500
is_rc 0 "a faulting handler (jump probe): the program exits normally"
is "$OUT" "$native" "... with its own output"
like "$ERR" "error handler: signal 11" "... the error handler ran with SIGSEGV"
like "$ERR" "1 probes removed while the program ran" "... and spool says the probe was removed"

spool_run probe -q --handler ./fault.so -e 'func:probe_tiny' -- "$PROG" 500
list="$("$SPOOL" probe --list -e 'func:probe_tiny' "$PROG")"
if is "$RC:$OUT" "0:$native" "a faulting handler on an int3 probe: same output and status"; then
	like "$ERR" "error handler: signal 11.*" "... the error handler ran" &&
		like "$list" "probe_tiny +entry +int3" "... (the probe was an int3)"
else
	show_run
	skip 2 "int3 run failed"
fi

# --- a handler that cannot be loaded ------------------------------------------
cp "$PROG" notashared
spool_run probe -q --handler ./notashared -e 'func:probe_leaf_add' -- "$PROG" 5
num_cmp "$RC" -ne 0 "a handler that cannot be loaded fails"
like "$ERR" "could not load .*notashared" "... and says why"

done_testing
