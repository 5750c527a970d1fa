#!/bin/bash
# SPDX-License-Identifier: MIT
# 288-a64-attach-commands.t - `spool probe -p PID --commands` and
# `--control PATH` (changing the probes of an attached process, issue 18)
# on aarch64, under qemu-user: not done on aarch64 (the agent's live
# changes, spool_agent_probe_ctl, are x86-64's), so refused as a usage
# error (exit 2) with the reason, before anything is done, and the running
# program goes on untouched. Before, under qemu-user the refusal said only
# that ptrace does not exist (exit 1), so a user learnt that --commands
# is not done on aarch64 only on a board (276 checks it on a real kernel).
. "$(dirname "$0")/lib.sh"

plan 8

P="$PROGS/attach_state"
[ -x "$P" ] || { skip 8 "$P is not built"; done_testing; exit 0; }
"$P" 60 stop >prog.out 2>prog.err &
pid=$!
wait_for ready prog.out 60

spool_run probe -p "$pid" -e func:attach_step --commands -o live.trace </dev/null
is_rc 2 "--commands with -p on aarch64: refused as a usage error (exit 2)"
like "$ERR" "--commands and --control are not available on aarch64 yet" "  saying so"
like "$ERR" "give every probe with -e when attaching" "  and what to do instead"
ok "  no trace written" test ! -e live.trace

spool_run probe -p "$pid" -e func:attach_step --control "$T_DIR/ctl.sock" -o ctl.trace
is_rc 2 "--control PATH with -p: refused the same way"
ok "  no socket made" test ! -e "$T_DIR/ctl.sock"

touch stop
wait "$pid"
is "$?" 0 "the program ran on untouched and ended well"
like "$(cat prog.out)" "done calls [0-9]+ check ok fp ok read ok code same" "  its own checks all hold"
done_testing
