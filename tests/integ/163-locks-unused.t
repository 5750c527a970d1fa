#!/bin/bash
# SPDX-License-Identifier: MIT
# 163-locks-unused.t - locks initialized and never used (openssl's rwlocks
# in redis) are not listed with 0 acquisitions (issue 17): the text report
# hides them and says how many, --all (spool locks and spool report) lists
# them; JSON always has every lock.
. "$(dirname "$0")/lib.sh"
plan 8
P="$PROGS/lock_unused"

spool_run locks -o u.trace -- "$P" 10
is_rc 0 "spool locks of a program with 4 locks never used"
like "$ERR" "(^|\n)  used_lock +mutex +10 " "  the used lock is listed"
unlike "$ERR" "idle_rw|idle_mutex" "  the unused ones are not"
like "$ERR" "\\(4 more initialized and never used: --all shows them\\)" "  and the report says so"
spool_run report --all u.trace
like "$OUT" "(^|\n)  idle_rw\\+0x38 +rwlock +0 " "report --all lists them (idle_rw[1]: rwlock, 0 acquisitions)"
like "$OUT" "(^|\n)  idle_mutex +mutex +0 " "  and the unused mutex"
spool_run locks --all -o u2.trace -- "$P" 10
like "$ERR" "(^|\n)  idle_rw +rwlock +0 " "spool locks --all lists them too"
report_json u.trace
is "$(json report.json 'len([l for l in d["locks"] if l["name"].startswith("idle_")])')" 4 \
	"JSON has every lock, the unused ones too"
done_testing
