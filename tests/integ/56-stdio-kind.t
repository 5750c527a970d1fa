#!/bin/bash
# SPDX-License-Identifier: MIT
# 56-stdio-kind.t - a replay gives the program a stdout and a stderr of the
# kinds it had when recorded (src/collect/stdio_kind.c): rr_outkind reports
# its kinds and takes a mutex once more for each terminal or file, so in
# sync mode a replay with other kinds would print other lines and diverge.
# Recorded into files, replayed into a pipe and onto a terminal (script's
# pseudo-terminal); recorded on a terminal with stderr the same terminal,
# replayed into a file, in order; recorded into a pipe, replayed into a
# file; recorded into /dev/null; a replay whose reader goes away ends
# normally.
. "$(dirname "$0")/lib.sh"

plan 13

PROG="$PROGS/rr_outkind"

# Recorded into two files.
spool_run record -q --mode sync -o files.trace -- "$PROG"
is "$RC" 0 "recorded with stdout and stderr in files"
like "$OUT" '^stdout file offset 0, stderr file offset 0, count 5$' "the program saw two files"
like "$(cat files.trace/.spool/record)" 'stdout=file' "the recording says stdout was a file"
cp run.out files.out

# Replayed into a pipe: the program gets a file again.
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q files.trace 2>pipe.err | cat >pipe.out
rc=${PIPESTATUS[0]}
check_sanitizer pipe.err "spool replay into a pipe"
is "$rc" 0 "replayed into a pipe: no divergence" || diag "$(cat pipe.err)"
ok "... and the same output as recorded" cmp -s files.out pipe.out

# Replayed onto a terminal.
if command -v script >/dev/null; then
	timeout -k 10 "$T_TIMEOUT" script -qec "'$SPOOL' replay -q files.trace 2>tty.err" /dev/null |
		tr -d '\r' >tty.out
	rc=${PIPESTATUS[0]}
	is "$rc" 0 "replayed onto a terminal: no divergence" || diag "$(cat tty.err)"
	ok "... and the same output as recorded" cmp -s files.out tty.out

	# Recorded on a terminal, stderr the same terminal.
	timeout -k 10 "$T_TIMEOUT" script -qec "'$SPOOL' record -q --mode sync -o $PWD/tty.trace -- '$PROG'" \
		/dev/null | tr -d '\r' >ttyrec.out
	like "$(cat tty.trace/.spool/record)" 'stderr=stdout' "a terminal for both: the recording says stderr was stdout"
	spool_run replay -q tty.trace
	is "$RC" 0 "replayed into a file: no divergence"
	is "$OUT" "$(printf 'stdout tty offset -1, stderr tty offset -1, count 5\nto stderr')" \
		"... the program saw one terminal, and its two lines come in order on stdout"
else
	skip 5 "script (bsdutils) is not installed"
fi

# Recorded into a pipe (serial mode), replayed into a file.
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o pipe.trace -- "$PROG" 2>/dev/null | cat >piperec.out
spool_run replay -q pipe.trace
is "$OUT" "$(cat piperec.out)" "recorded into a pipe, replayed into a file: the program saw a pipe"

# Recorded into /dev/null: so is the replay's output.
timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode sync -o null.trace -- "$PROG" >/dev/null 2>&1
spool_run replay -q null.trace
ok "recorded into /dev/null: the replay writes nothing either, and ends well" \
	test "$RC" = 0 -a ! -s run.out

# Nobody reads the replay's output: it ends normally.
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q files.trace 2>gone.err | true
rc=${PIPESTATUS[0]}
is "$rc" 0 "a replay whose reader went away ends normally" || diag "$(cat gone.err)"

done_testing
