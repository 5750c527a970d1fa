#!/bin/bash
# SPDX-License-Identifier: MIT
# 00-cli.t - the command line as a user meets it: help, usage errors with
# exit status 2 naming the culprit, and programs spool cannot run (missing,
# not executable, statically linked) refused with 127/126/1 and a reason.
. "$(dirname "$0")/lib.sh"

plan 36

spool_run
is_rc 2 "spool with no command exits 2"
like "$ERR" "usage" "  and prints the usage on stderr"

spool_run help
is_rc 0 "spool help exits 0"
like "$OUT" "locks" "  and lists the locks command"
like "$OUT" "report" "  and the report command"

spool_run locks --help
is_rc 0 "spool locks --help exits 0"
like "$OUT" "--ring-size" "  and documents --ring-size"

spool_run help locks
is_rc 0 "spool help locks exits 0"
like "$OUT" "--stacks" "  and shows the locks options"

spool_run report --help
is_rc 0 "spool report --help exits 0"
like "$OUT" "--locks" "  and documents --locks"

spool_run export --help
is_rc 0 "spool export --help exits 0"
like "$OUT" "--perfetto" "  and documents --perfetto"

spool_run frobnicate
is_rc 2 "unknown command exits 2"
like "$ERR" "frobnicate" "  and names it"

spool_run locks --bogus-option -- "$PROGS/lockcount" 1 1
is_rc 2 "unknown option of spool locks exits 2"
like "$ERR" "bogus-option" "  and names it"
unlike "$OUT" "total=" "  and the program was not run"

# An option whose value is missing is named as such, not as unknown, by
# every command that runs a program.
for c in locks record probe; do
	spool_run "$c" -o
	is_rc 2 "spool $c -o without a value exits 2"
	like "$ERR" "option '-o' needs a value" "  and says the value is missing"
done

spool_run locks
is_rc 2 "spool locks without a program exits 2"

spool_run locks --ring-size banana -- "$PROGS/lockcount" 1 1
is_rc 2 "a bad --ring-size value exits 2"

spool_run locks --sort sideways -- "$PROGS/lockcount" 1 1
is_rc 2 "a bad --sort key exits 2"

spool_run report --locks --bogus-option
is_rc 2 "unknown option of spool report exits 2"

spool_run locks -- ./no-such-program-here
is_rc 127 "a program that does not exist: exit 127"
like "$ERR" "no-such-program-here" "  with a message naming it"

printf '#!/bin/sh\nexit 0\n' >not-executable
chmod 644 not-executable
spool_run locks -- ./not-executable
is_rc 126 "a program that is not executable: exit 126"
like "$ERR" "not-executable" "  with a message naming it"

if [ -x "$PROGS/lockcount-static" ]; then
	spool_run locks -- "$PROGS/lockcount-static" 2 10
	is_rc 1 "a statically linked program is refused with exit 1"
	like "$ERR" "static" "  with a message saying it is static"
	like "$ERR" "LD_PRELOAD|dynamic" "  and why (interposition needs dynamic linking)"
	unlike "$OUT" "total=" "  and it was not run"
else
	skip 4 "lockcount-static not built"
fi

done_testing
