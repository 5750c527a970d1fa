#!/bin/bash
# SPDX-License-Identifier: MIT
# 405-trace-arg-messages.t - what a new user sees first: a reading command
# run where there is no trace, or given the wrong thing. Each command used
# to say it its own way: `spool info` "spool.trace: cannot open the trace
# directory: No such file or directory", `spool decode` "cannot read trace
# ...", a directory that is not a trace "DIR/metadata: cannot open the trace
# metadata", and only `spool report` said how to make a trace. Now report,
# info, export, path and decode say the same thing (src/cmd/trace_arg.c):
# what is wrong with DIR, how to make one or name it, and where a spool is
# still writing it or a killed one left its partial trace.
. "$(dirname "$0")/lib.sh"

plan 14

# said CMD...: runs spool CMD... (spool_run); SAID is "RC N", N the lines
# of its stderr holding $WANT.
said() {
	spool_run "$@"
	SAID="$RC $(grep -cF -- "$WANT" run.err)"
}

MAKE="(make one with spool locks, spool probe or spool record; or name it: spool"
for cmd in "report" "report --functions" "info" "path" "export --perfetto" "export --chrome" \
	   "export --folded" "decode"; do
	WANT="spool: error: trace directory 'spool.trace' does not exist $MAKE $cmd DIR)"
	# shellcheck disable=SC2086
	said $cmd
	is "$SAID" "1 1" "spool $cmd without a trace: exit 1, one sentence, how to make one" ||
		show_run
done

: >afile
bad=0
for cmd in "report" "info" "export --perfetto" "decode"; do
	WANT="'afile' is not a trace directory (a trace is the directory spool locks, probe or record wrote)"
	# shellcheck disable=SC2086
	said $cmd afile
	[ "$SAID" = "1 1" ] || { bad=1; diag "spool $cmd afile: $SAID: $ERR"; }
done
is "$bad" 0 "report, info, export, decode of a file: exit 1, 'not a trace directory'"

mkdir empty
bad=0
for cmd in "report" "info" "path" "export --chrome" "decode"; do
	WANT="'empty' is not a trace: it has no metadata file"
	# shellcheck disable=SC2086
	said $cmd empty
	[ "$SAID" = "1 1" ] || { bad=1; diag "spool $cmd empty: $SAID: $ERR"; }
done
is "$bad" 0 "report, info, path, export, decode of a directory without metadata: exit 1, says so"

# A spool still writing t (its program waits for the file go; it says its
# pid, to be waited for once its spool is killed).
"$SPOOL" locks -q -o t -- sh -c 'echo $$ >sh.pid; while [ ! -e go ]; do sleep 0.05; done' \
	</dev/null >bg.out 2>bg.err &
SP=$!
for ((i = 0; i < 2400; i++)); do
	W="$(ls -d t.writing.* 2>/dev/null | head -n 1)"
	[ -n "$W" ] && [ -d "$W/.spool" ] && [ -s sh.pid ] && break
	sleep 0.05
done
ok "spool locks is writing t.writing.PID" test -n "$W"
WANT="a spool is still writing it, in $W/ (renamed to t when whole; 'spool info $W' reads"
said info t
is "$SAID" "1 1" "spool info t while a spool writes it: exit 1, names $W" || show_run

# Killed: its partial trace stays, and the next reader names it.
kill -KILL "$SP"
wait "$SP" 2>/dev/null
touch go
# its program ends on its own now: wait for it (and end it if it does not)
SH="$(cat sh.pid 2>/dev/null)"
for ((i = 0; i < 600; i++)); do
	[ -n "$SH" ] && kill -0 "$SH" 2>/dev/null || break
	sleep 0.05
done
[ -n "$SH" ] && kill -KILL "$SH" 2>/dev/null
WANT="$W/ is the unfinished trace of a spool that did not end (pid ${W##*.}, killed?): 'spool info $W' reads it"
said report t
is "$SAID" "1 1" "spool report t after that spool was killed: names the partial trace" || show_run
like "$ERR" "'spool recover $W' keeps it" "  and how to keep it"

done_testing
