#!/bin/bash
# SPDX-License-Identifier: MIT
# 116-node-gdbserver.t - Debian's node recorded (libuv's thread pool at
# work, tests/real/data/node-pool.js), then debugged backwards with an
# unmodified gdb through `spool replay --gdbserver -`: a breakpoint on
# libuv's uv_queue_work, `continue` twice (two different requests), then
# `reverse-continue` back to the first hit (the same request).
# Pins three bugs found that way, each of which made gdb's first `continue`
# never return, with nothing said:
#   - the program under --gdbserver got descriptors the recorded one did not
#     have (spool's /dev/null, what gdb leaves open in `target remote |`'s
#     command, the shared region at the lowest free number) and lacked the
#     ones it had inherited when recorded (here fd 7, from the shell): every
#     descriptor node opened came at another number and the replay diverged
#     ("write(fd 5)" recorded, "write(fd 6)" replayed). The record file now
#     keeps the inherited numbers (fds=), and the program gets exactly those.
#   - a replay that diverged under --gdbserver stayed parked for good: its
#     session waited for the program's end before watching it. Now it is
#     stopped, spool says why, gdb sees the program killed.
. "$(dirname "$0")/lib.sh"
need_progs node
need_gdb

plan 9

JS="$REPO/tests/real/data/node-pool.js"
# fd 7 open (not close-on-exec) in the recorded program, as a shell or a
# build tool leaves descriptors open
spool_run record -q -o rec -- node "$JS" 7</dev/null
is "$RC" 0 "node recorded with descriptor 7 inherited"
like "$(cat rec/.spool/record)" "^fds=([0-9]+,)*7(,|$)" "  the record file names descriptor 7 (fds=)"

GDB=(timeout -k 5 300 gdb -q -batch -nx)
"${GDB[@]}" -ex "target remote | $SPOOL replay --gdbserver - rec" \
	-ex 'break uv_queue_work' \
	-ex continue -ex 'printf "hit1=%lx\n", req' \
	-ex continue -ex 'printf "hit2=%lx\n", req' \
	-ex reverse-continue -ex 'printf "back=%lx\n", req' \
	-ex 'monitor when' -ex kill >gdb.out 2>&1
GRC=$?
check_sanitizer gdb.out "gdb on spool replay --gdbserver"
val() { sed -n "s/^$1=\([0-9a-f]*\)\$/\1/p" gdb.out | head -n 1; }
H1=$(val hit1) H2=$(val hit2) BACK=$(val back)
diag "requests: ${H1:-none}, ${H2:-none}; back at ${BACK:-none}"
is "$GRC" 0 "gdb through --gdbserver exits 0" || diag "$(grep -av 'New Thread' gdb.out | tail -n 20)"
unlike "$(cat gdb.out)" "replay diverged|replay stuck" "  the replay under gdb does not diverge"
ok "two hits of uv_queue_work, with two different requests" \
	test -n "$H1" -a -n "$H2" -a "$H1" != "$H2"
is "${BACK:-none}" "${H1:-x}" "reverse-continue goes back to the first hit (its request)"
like "$(cat gdb.out)" "stop [0-9]+ of the replay" "  monitor when answers"

# A replay that goes another way under gdb: said, and gdb sees the end.
"${GDB[@]}" -ex "target remote | $SPOOL replay --gdbserver - rec -- $(command -v node) -e 'console.log(42)'" \
	-ex continue >div.out 2>&1
DRC=$?
ok "a diverging replay under --gdbserver ends (gdb exits by itself, status $DRC)" test "$DRC" != 124
like "$(cat div.out)" "spool: error: replay diverged" "  spool says it diverged" ||
	diag "$(grep -av 'New Thread' div.out | tail -n 10)"

done_testing
