#!/bin/bash
# SPDX-License-Identifier: MIT
# 66-spool-killed.t - spool killed (SIGKILL) while Debian's pigz -p 2
# compresses 60 MB under it: pigz runs on and writes the whole output,
# and the partial trace says it is incomplete (issue 12: it looked
# complete, `spool info` exited 0 and said 0 lost). The same for `spool
# record`: the replay refuses the partial recording with status 4
# (doc/record.md), not "not made by spool record".
. "$(dirname "$0")/lib.sh"
need_progs pigz
plan 8

head -c 60000000 /dev/urandom >data
pigz -p 2 -c data >native.gz

# kill_spool_mid_run CMD...: runs spool CMD... in the background, kills it
# (SIGKILL) 0.4 s in, then waits up to 30 s for pigz to finish (1 s
# alone); a pigz still running then is killed (it hung: the output check
# after this fails). The program's pid is the spool process's only child.
kill_spool_mid_run() {
	local sp prog i
	"$SPOOL" "$@" >out.gz 2>spool.err </dev/null &
	sp=$!
	SPOOL_PID=$sp # the partial trace is DIR.writing.<spool's pid>
	sleep 0.4
	prog=$(pgrep -P "$sp" | head -n 1)
	kill -KILL "$sp"
	wait "$sp" 2>/dev/null
	[ -n "$prog" ] || return 1
	for ((i = 0; i < 300; i++)); do
		kill -0 "$prog" 2>/dev/null || return 0
		sleep 0.1
	done
	diag "pigz (pid $prog) still runs 30 s after spool was killed: killed"
	kill -KILL "$prog"
	return 0
}

ok "spool locks was killed while pigz ran" kill_spool_mid_run locks -q -o l.trace -- pigz -p 2 -c data
ok "pigz ran on and wrote the whole output" cmp -s out.gz native.gz
spool_run info "l.trace.writing.$SPOOL_PID"
is_rc 4 "spool info exits 4: the trace is incomplete"
like "$OUT" 'writer: did not finish' "spool info says its writer did not finish"
spool_run report --locks "l.trace.writing.$SPOOL_PID"
like "$ERR" 'l.trace.writing.[0-9]+ is incomplete' "spool report --locks says the trace is incomplete"

ok "spool record was killed while pigz ran" kill_spool_mid_run record -q -o r.trace -- pigz -p 2 -c data
ok "pigz ran on and wrote the whole output" cmp -s out.gz native.gz
spool_run replay -q -o rep.trace "r.trace.writing.$SPOOL_PID"
is_rc 4 "spool replay refuses the partial recording with status 4"
done_testing
