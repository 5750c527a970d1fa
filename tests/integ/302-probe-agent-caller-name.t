#!/bin/bash
# SPDX-License-Identifier: MIT
# 302-probe-agent-caller-name.t - a libc function the program calls through
# spool's agent (pthread_cond_wait: the agent interposes it) has the agent's
# wrapper as its caller in `spool report --functions`. The wrapper's code is
# the C function the entry stub of the same name calls, renamed spool_i_NAME
# in the agent (scripts/agent-stubs.sh); the report showed that inner name,
# `spool_i_pthread_cond_wait (libspool-agent.so)`, where a user reads the
# call the program made: `pthread_cond_wait (libspool-agent.so)`
# (tests/real/130 saw it on zstd).
. "$(dirname "$0")/lib.sh"

plan 3

spool_run probe -q -o cv.trace -e 'func:libc.so*:pthread_cond_*' -- "$PROGS/condvar" 2000
is_rc 0 "probe func:libc.so*:pthread_cond_* over a producer/consumer: exit 0"
"$SPOOL" report --functions --json cv.trace >cv.json 2>cv.err
callers=$(json cv.json "' '.join(sorted(set(c['name'] for f in d['functions'] if f['name'] == 'pthread_cond_wait' for c in f['callers'])))")
is "$callers" "pthread_cond_wait (libspool-agent.so)" \
	"  pthread_cond_wait's caller is the agent's wrapper, named as the program called it"
"$SPOOL" report --functions cv.trace >cv.txt 2>&1
unlike "$(cat cv.txt)" "spool_i_" "  the text report names no agent-internal symbol"
done_testing
