#!/bin/bash
# SPDX-License-Identifier: MIT
# 164-locks-none-why.t - a lock report without locks says why (issue 17),
# not "locks: none used": what spool can see and what it cannot (own
# atomics, inline futex calls); locks initialized but never used are
# counted; a program whose only locks are futexes is told so (162).
. "$(dirname "$0")/lib.sh"
plan 5
spool_run locks -o n.trace -- /bin/true
is_rc 0 "spool locks of a program that takes no lock"
like "$ERR" "locks: none seen" "  says none was seen"
like "$ERR" "futex calls made through syscall\\(\\).*\n.*own atomics" "  and what spool can and cannot see"
unlike "$ERR" "none used" "  not 'none used'"
spool_run locks -o u.trace -- "$PROGS/lock_unused" 0
like "$ERR" "locks: 4 initialized, none used \\(--all shows them\\)" \
	"locks initialized, never used: counted, --all named"
done_testing
