#!/bin/bash
# SPDX-License-Identifier: MIT
# 389-script-unreadable.t - spool probe and spool path read the program's
# own code, and a #! script has none: given one (Debian's /usr/bin/7z is a
# shell script that execs the real program), they said only "cannot read
# it: Exec format error". They now say that it is a script, which
# interpreter runs it, and what to give them instead; nothing is run.
. "$(dirname "$0")/lib.sh"

plan 6

printf '#!/bin/sh\nexec "%s" "$@"\n' "$PROGS/lockcount" >run.sh
chmod +x run.sh
spool_run path -- ./run.sh 2 10
is_rc 1 "spool path on a #! script: refused (exit 1)"
like "$ERR" 'run.sh: cannot read it: it is a #! script run by /bin/sh; .*give it the program the script runs' \
	"  saying it is a script, run by /bin/sh, and what to give instead"
unlike "$OUT" 'total=' "  the program did not run"
spool_run probe -e 'func:main' -- ./run.sh 2 10
is_rc 1 "spool probe on a #! script: refused (exit 1)"
like "$ERR" 'cannot read .*run.sh: it is a #! script run by /bin/sh' "  saying the same"
# the program the script runs is what to give: it works
spool_run path -q -w p.txt -- "$PROGS/lockcount" 2 10
is_rc 0 "spool path on the program the script runs: exit 0"

done_testing
