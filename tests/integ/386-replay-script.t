#!/bin/bash
# SPDX-License-Identifier: MIT
# 386-replay-script.t - a program started through a #! script that execs
# it (Debian's /usr/bin/7z is `#! /bin/sh` + `exec /usr/lib/p7zip/7z "$@"`):
# spool record took it (exit 0, not 5) but every spool replay refused it,
# "/usr/bin/7z has build id (none), the recording was made with build id
# ... (/usr/bin/dash)": the replay checked the script's own build id (it
# has none) against the binary the recording ran for it, its interpreter.
# The replay now checks the interpreter the #! line names, and still
# refuses a script whose interpreter is another binary, naming both.
. "$(dirname "$0")/lib.sh"

plan 9

printf '#!/bin/sh\nexec date +%%s.%%N\n' >now.sh
printf '#!/usr/bin/perl\nexec "date", "+%%s.%%N";\n' >now.pl
chmod +x now.sh now.pl

for mode in serial sync; do
	spool_run record --mode "$mode" -o "$mode.trace" -- ./now.sh
	is_rc 0 "$mode: record of a #! script that execs date exits 0"
	cp run.out "$mode.out"
	replays_same 2 0 "$mode.out" -q "$mode.trace"
	is "$SAME" 2 "$mode: 2 replays of 2 print date's recorded time"
	replays_same 1 0 "$mode.out" -q "$mode.trace" -- ./now.sh
	is "$SAME" 1 "$mode: a replay given the script's command line prints it too"
done

spool_run replay -q serial.trace -- ./now.pl
is_rc 1 "a script with another interpreter (perl, not sh) is refused"
like "$ERR" "/usr/bin/perl, the interpreter of \\./now\\.pl, has build id .*refusing" \
	"  the refusal names the interpreter and the script"
unlike "$OUT" "[0-9]" "  and nothing ran"
done_testing
