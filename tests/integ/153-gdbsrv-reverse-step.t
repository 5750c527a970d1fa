#!/bin/bash
# SPDX-License-Identifier: MIT
# 153-gdbsrv-reverse-step.t - reverse-step, reverse-next, reverse-stepi and
# reverse-finish over spool's gdbserver, in a thread of a multithreaded
# replay: from the wrong write (reached with a watchpoint backwards),
# reverse-next goes back one line at a time in that thread; stepi then
# reverse-stepi come back to the same instruction; reverse-finish runs back
# to the call of the thread's function; and forward again, next reaches
# the line after.
. "$(dirname "$0")/lib.sh"

gdbsrv_bank
plan 10
BUG=$(line_of BUG)

spool_run record -q -o rec -- "$BIN" 6
is_rc 1 "a recording whose balance ends up wrong"

gdbsrv -ex "break rr_rev_bank.c:$(line_of END)" -ex continue -ex 'watch balance' \
	-ex reverse-continue -ex delete -ex reverse-next -ex 'info line *$pc' -ex reverse-next \
	-ex 'info line *$pc' -ex 'thread' -ex next -ex next -ex 'info line *$pc' -ex kill
like "$G1" "New value = 100 +teller \(arg=0x2\) at [^ ]*:$BUG" "at the wrong write, by watching backwards"
like "$G" "^Line $((BUG - 1)) of .*rr_rev_bank.c" "reverse-next goes back one line"
like "$G" "^Line $((BUG - 2)) of .*rr_rev_bank.c" "  and one more"
like "$G" 'Current thread is 2 ' "  in the same thread"
like "$G" "^Line $BUG of .*rr_rev_bank.c" "next goes forward again to the write"

gdbsrv -ex "break rr_rev_bank.c:$BUG" -ex continue -ex 'print $pc' -ex stepi -ex stepi \
	-ex reverse-stepi -ex reverse-stepi -ex 'print $pc' -ex reverse-step -ex 'info line *$pc' \
	-ex kill
pc1=$(sed -n 's/^\$1 = .*\(0x[0-9a-f]*\).*/\1/p' gdb.out)
pc2=$(sed -n 's/^\$2 = .*\(0x[0-9a-f]*\).*/\1/p' gdb.out)
if [ -n "$pc1" ] && [ "$pc1" = "$pc2" ]; then
	pass "two stepi then two reverse-stepi: the same instruction ($pc1)"
else
	fail "two stepi then two reverse-stepi: the same instruction ($pc1, $pc2)"
fi
like "$G" "^Line $((BUG - 1)) of .*rr_rev_bank.c|pthread_mutex_(un)?lock" \
	"reverse-step from the write goes back to the line before (or into the lock call)"

gdbsrv -ex "break rr_rev_bank.c:$BUG" -ex continue -ex reverse-finish -ex 'bt 2' -ex kill
like "$G" '^0x[0-9a-f]+ in agent_thread_start .*agent_thread.c' \
	"reverse-finish runs back to the call of the thread's function (in the agent's thread start)"
like "$G1" '#0 +0x[0-9a-f]+ in agent_thread_start .*#1 .*start_thread' "  the caller of teller, in its thread"
done_testing
