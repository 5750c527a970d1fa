#!/bin/bash
# SPDX-License-Identifier: MIT
# 30-passthrough.t - spool locks must leave the program's stdin, stdout,
# stderr, environment and exit status exactly as they would be without it:
# byte-exact binary data through a pipe, spool's own messages only on stderr
# and only with the "spool: " prefix (with -q), exit statuses passed on.
. "$(dirname "$0")/lib.sh"

plan 20

head -c 1000000 /dev/urandom >input.bin

RUN_STDIN=input.bin
spool_run locks -q -- "$PROGS/passthrough" 0
RUN_STDIN=/dev/null
is_rc 0 "passthrough 0 under spool exits 0"
ok "  1 MB of random bytes come out of stdout unchanged" cmp -s input.bin run.out
is "$(grep -v '^spool: ' run.err)" "err" "  the program's stderr is there, and nothing but spool: lines besides"
like "$(summary_line)" . "  the summary line is on stderr"

for st in 3 42 255; do
	spool_run locks -q -- "$PROGS/passthrough" "$st"
	is_rc "$st" "exit status $st is passed on"
done

# A pipe rather than a file on stdin, and the full report (not -q): the
# report goes to stderr, stdout stays the program's.
printf 'line one\nline two\n\0binary\n' >small.in
timeout -k 10 "$T_TIMEOUT" "$SPOOL" locks -- "$PROGS/passthrough" 7 <small.in >pipe.out 2>pipe.err
RC=$?
is "$RC" 7 "stdin from a pipe, full report: status 7"
ok "  stdout is byte-exact" cmp -s small.in pipe.out
like "$(cat pipe.err)" "^err$" "  the program's stderr line is there"
like "$(cat pipe.err)" "shared_lock|io_lock|lock" "  and the report went to stderr"

timeout -k 10 "$T_TIMEOUT" "$SPOOL" locks --json -- "$PROGS/passthrough" 0 <small.in >json.out 2>json.err
RC=$?
is "$RC" 0 "--json: status 0"
ok "  stdout is still byte-exact" cmp -s small.in json.out

spool_run locks -q -- "$PROGS/passthrough" 0
is "$(wc -c <run.out)" 0 "empty stdin gives empty stdout"

SPOOL_TEST_VAR='a b  c' spool_run locks -q -- /bin/sh -c 'printf "%s|" "$SPOOL_TEST_VAR" "$@"' sh x 'y z'
is_rc 0 "a shell under spool runs"
is "$OUT" "a b  c|x|y z|" "  environment and arguments arrive unchanged"

spool_run locks -q -- false
is_rc 1 "false under spool exits 1 (PATH lookup works)"

spool_run locks -q -- /bin/sh -c 'echo "${LD_PRELOAD:-}"'
like "$OUT" "libspool-agent" "the agent is preloaded in the program"

mkdir -p odir
spool_run locks -q -o odir/mytrace -- "$PROGS/lockcount" 1 10
is_rc 0 "-o DIR: status 0"
ok "  the trace is in DIR" test -f odir/mytrace/metadata

done_testing
