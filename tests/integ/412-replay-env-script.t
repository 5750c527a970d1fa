#!/bin/bash
# SPDX-License-Identifier: MIT
# 412-replay-env-script.t - a program started through a `#!/usr/bin/env
# bash` script that forks, then execs the program (a pyenv shim: `python3`
# is such a script; 79 processes before python3.11 runs): every replay was
# refused, "/usr/bin/env, the interpreter of .../python3, has build id
# ..., the recording was made with build id c89b... (/usr/bin/date)" (or
# "(none)", the script's own): record named the tree's binary after
# process slot 0, which the first process's last image (date) or a forked
# child had taken once its first image ended. The recording now names the
# image exec made of the file spool ran (env, as replay checks it).
# Sync mode: bash that runs two commands one after the other replayed
# without starting the second (exit 3, "process 3 ... ended before thread 0
# replayed its 3 recorded events"): the first child's SIGCHLD came during
# the second fork, and bash's handler reaped it (wait4) before the fork's
# record was written; the replayed fork, not finding its record next past
# the delivery, took the child for one off the way of a --pid replay and
# did not fork.
. "$(dirname "$0")/lib.sh"

plan 8

printf '#!/usr/bin/env bash\nfor i in 1 2 3 4 5; do /bin/true; done\nsleep 0.5\nexec date +%%s.%%N\n' >now.sh
chmod +x now.sh

spool_run record -q -o s.trace -- ./now.sh
is_rc 0 "serial: record of an env-bash script that forks and execs date exits 0"
cp run.out s.out
"$SPOOL" info s.trace >info.txt 2>&1
like "$(cat info.txt)" "0 +[0-9]+ +[0-9]+ +- first +/usr/bin/env" "  the tree's first process is env"
replays_same 2 0 s.out -q s.trace
is "$SAME" 2 "serial: 2 replays of 2 run and print date's recorded time"

spool_run record -q --mode sync -o y.trace -- ./now.sh
is_rc 0 "sync: record exits 0"
cp run.out y.out
spool_run replay -q y.trace
unlike "$ERR" "different binary" "sync: the replay is not refused for its binary"
replays_same 2 0 y.out -q y.trace
is "$SAME" 2 "sync: 2 replays of 2 exit 0 with the recorded output (every child replayed)"

spool_run record -q --mode sync -o b.trace -- bash -c '/bin/true; /bin/true; echo done'
is_rc 0 "sync: bash -c with two commands, then an echo: record exits 0"
cp run.out b.out
replays_same 3 0 b.out -q b.trace
is "$SAME" 3 "sync: 3 replays of 3 exit 0 with the recorded output"
done_testing
