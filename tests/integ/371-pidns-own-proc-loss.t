#!/bin/bash
# SPDX-License-Identifier: MIT
# 371-pidns-own-proc-loss.t - the events of a process in a pid namespace
# with a /proc of its own are lost for their own reason, said the same way
# everywhere. Such a process (here the grandchild of ./ns ownproc, forked
# after its parent mounted the namespace's /proc) has pids spool cannot
# tell, so it gets no process slot and no ring and its events are counted
# lost (agent_proc_claim, doc/probe.md "Limits"). They were counted as
# "in fork children before their ring", a wrong reason; now they have
# their own count (shm_ctl.lost_pidns, the state file's pidns, the
# summary's lost_pidns), and the run's summary, spool info and a report's
# JSON loss block say "in a pid namespace with its own /proc". Needs
# CAP_SYS_ADMIN (a skip without it).
. "$(dirname "$0")/lib.sh"

need_cc
plan 9

c_pidns_prog >ns.c
ok "the test program builds" "$CC" -O1 -pthread -o ns ns.c
if ! native="$(./ns ownproc 2>&1)" || [ "$native" != "ownproc children 1 bad 0 parent steps 1" ]; then
	skip 8 "no mount namespace with a /proc of its own here ($native)"
	done_testing
	exit 0
fi
WHY="2 events lost \\(2 in a pid namespace with its own /proc \\(pids spool cannot tell\\)\\)"

SPOOL_RING_PACKETS=1 spool_run probe -q -e 'func:step' -o o.trace -- ./ns ownproc
is "$RC:$OUT" "4:$native" "the program's output, exit 4 (incomplete)"
like "$ERR" "incomplete: $WHY" "  the run says the loss with its reason"
unlike "$ERR" "fork children" "  not as fork children's (the reason it was given before)"
is "$(grep -x 'pidns=[0-9]*' o.trace/.spool/state) $(grep -x 'fork=[0-9]*' o.trace/.spool/state)" \
	"pidns=2 fork=0" "  the state file counts them apart"
is "$(grep -x 'lost_pidns=[0-9]*' o.trace/.spool/summary)" "lost_pidns=2" "  so does the run's summary"

spool_run info o.trace
like "$OUT$ERR" "$WHY" "spool info: the same words"
"$SPOOL" report --functions --json o.trace >fn.json 2>fn.err
check_sanitizer fn.err "spool report --functions"
like "$(json fn.json 'd["trace"]["missing"]')" "^$WHY\$" "spool report --json: the same words"
is "$(json fn.json 'str(d["trace"]["lost"])')" 2 "  and the same number"

done_testing
