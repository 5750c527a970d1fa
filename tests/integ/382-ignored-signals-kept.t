#!/bin/bash
# SPDX-License-Identifier: MIT
# 382-ignored-signals-kept.t - a signal ignored when spool starts stays
# ignored for the program, as exec keeps it without spool: `nohup spool
# locks -- PROG` (SIGHUP ignored), or spool run as a shell's background job
# (SIGINT and SIGQUIT ignored). spool set SIGINT, SIGQUIT, SIGTERM and
# SIGHUP back to their default before the exec, so the program was killed
# by the first SIGHUP that it survives alone ("spool: /bin/sh killed by
# signal 1 (Hangup)"). Under spool locks, record and probe (each starts
# the program its own way), and spool replay of the recording.
. "$(dirname "$0")/lib.sh"
plan 12

# the program: says which of SIGHUP, SIGINT, SIGQUIT and SIGTERM it
# inherited ignored (SigIgn bits 0, 1, 2, 14: sed's own, which it inherits
# from sh; /proc/self, as a replay's $$ is the recorded pid), sends itself
# SIGHUP, and says it survived
cat >hup.sh <<'SH'
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status)
echo "ignored: $(( 0x$ign & 0x4007 ))"
kill -HUP $$
echo survived
SH
# ignoring CMD...: CMD run with SIGHUP, SIGINT, SIGQUIT and SIGTERM ignored
ignoring() {
	sh -c 'trap "" HUP INT QUIT TERM; exec "$@"' sh "$@"
}

ignoring sh hup.sh >native.out 2>&1
is "$(cat native.out)" $'ignored: 16391\nsurvived' "alone, the program inherits the 4 signals ignored and survives SIGHUP"

RUN_STDIN=/dev/null
spool_ign() {
	# (timeout's child gets its handlers back to the default: the
	# ignore is set after it)
	timeout -k 10 "$T_TIMEOUT" sh -c 'trap "" HUP INT QUIT TERM; exec "$@"' sh \
		"$SPOOL" "$@" <"$RUN_STDIN" >run.out 2>run.err
	RC=$?
	OUT="$(cat run.out)"
	ERR="$(cat run.err)"
	check_sanitizer run.err "spool $*"
}

spool_ign locks -q -o l.trace -- sh hup.sh
is "$OUT" "$(cat native.out)" "spool locks: the program inherits them ignored too, and survives SIGHUP"
is_rc 0 "  spool exits with its status, 0"

spool_ign record -q -o r.trace -- sh hup.sh
is "$OUT" "$(cat native.out)" "spool record: the same"
is_rc 0 "  spool exits 0"
spool_ign replay -q -o rep.trace r.trace
is "$OUT" "$(cat native.out)" "spool replay of that recording: the same"
is_rc 0 "  spool exits 0"

spool_ign probe -q -e sys:cpu -o p.trace -- sh hup.sh
is "$OUT" "$(cat native.out)" "spool probe: the same"
is_rc 0 "  spool exits 0"

# what spool does not inherit ignored is still the default for the program:
# SIGHUP kills it (129), as it does alone
ALONE=$(sh -c 'sh hup.sh >alone.out 2>&1; echo $?')
spool_run locks -q -o d.trace -- sh hup.sh
is "$RC" "$ALONE" "without the ignore, SIGHUP ends the program under spool as alone ($ALONE)"
is "$OUT" "ignored: 0" "  it inherited none of them ignored"

# spool itself keeps ignoring a SIGHUP it was started with ignored (nohup):
# the program runs to its end, the trace is whole
# (sh execs spool: SPID is spool's pid)
sh -c 'trap "" HUP INT QUIT TERM; exec "$@"' sh \
	"$SPOOL" locks -q -o n.trace -- sh -c 'echo started; sleep 2; echo done' \
	>nohup.out 2>nohup.err </dev/null &
SPID=$!
wait_for started nohup.out 30
kill -HUP "$SPID" 2>/dev/null
wait "$SPID"
RC=$?
is "$RC:$(tr '\n' ' ' <nohup.out)" "0:started done " "a SIGHUP to a nohup'd spool: the program ends by itself, spool exits 0"
done_testing
