#!/bin/bash
# SPDX-License-Identifier: MIT
# 318-tid-32767.t - a program whose pid is 32767 is recorded and replayed
# like any other. The agent finds where glibc keeps a thread's tid in its
# thread descriptor; it used to search the main thread's descriptor for its
# tid, and with the fixed layout (ADDR_NO_RANDOMIZE) the descriptor's own
# address, 0x00007fff..., holds 32767 in its upper half before the tid
# field. Every thread created later then looked like a thread running on
# main's TLS: its events were dropped, and in a replay it ran outside the
# schedule ("replay stuck ... thread N has replayed 0 of its 49 events and
# runs outside the agent", or "the program ended before thread 1 replayed
# its 3143 recorded events (it replayed 0)": tests/real/quick/81, 1
# replay in about 11,000 under load, whenever the replayed program got pid 32767;
# pids wrap at 32768 here). The program runs in a pid namespace of its own
# whose next pid is set through /proc/sys/kernel/ns_last_pid (root only:
# skipped otherwise). tests/progs/rr_bank's output depends on the schedule.
. "$(dirname "$0")/lib.sh"

P="$PROGS/rr_bank"
NS_PID=32767

if ! unshare -pf --mount-proc sh -c 'echo 1000 >/proc/sys/kernel/ns_last_pid' 2>/dev/null; then
	echo "1..0 # SKIP no pid namespace with a settable next pid (needs root and unshare)"
	exit 0
fi

plan 10

# ns_run LAST ARGS...: spool ARGS in a new pid namespace whose last pid is
# LAST, with the agent's log on (it says the program's pid); like spool_run.
ns_run() {
	local last="$1"
	shift
	# shellcheck disable=SC2016 # expanded by that shell
	timeout -k 10 "$T_TIMEOUT" unshare -pf --mount-proc sh -c \
		'echo "$1" >/proc/sys/kernel/ns_last_pid || exit 99; shift; exec "$@"' \
		sh "$last" env SPOOL_DEBUG=1 "$SPOOL" "$@" </dev/null >run.out 2>run.err
	RC=$?
	OUT="$(cat run.out)"
	ERR="$(grep -v '^spool\(-agent\)\?: \(debug\|[a-z_]*:\) \|^spool-agent: ' run.err)"
	check_sanitizer run.err "spool $*"
}

# the program's pid in the last ns_run (the agent's log)
prog_pid() {
	grep -o -m 1 'spool-agent: recording pid [0-9]*' run.err | grep -o '[0-9]*$'
}

# ns_as_pid ARGS...: ns_run ARGS with the program's pid NS_PID: a first run
# finds how many pids spool takes before the program's (its own, its
# threads': one more or less from run to run), then up to 4 tries. $GOT is
# the pid the program had.
ns_as_pid() {
	local p last try
	ns_run 1000 "$@"
	p=$(prog_pid)
	GOT=""
	[ -n "$p" ] || return 0
	last=$((NS_PID - 1 - (p - 1001)))
	for try in 1 2 3 4; do
		rm -rf rep.trace
		ns_run "$last" "$@"
		GOT=$(prog_pid)
		[ -n "$GOT" ] && [ "$GOT" != "$NS_PID" ] || break
		last=$((last + NS_PID - GOT))
	done
}

# The recording's schedule has every worker's events (none dropped): its
# second event (sync mode) or a run with progress (serial mode's switches).
workers_recorded() {
	local tr="$1" i
	"$SPOOL" replay --dump-schedule "$tr" >dump.txt 2>/dev/null || return 1
	for i in 1 2 3; do
		grep -Eq "thread $i (event 2 |count [1-9])" dump.txt || return 1
	done
}

for m in sync serial; do
	rm -rf "$m.trace"
	ns_as_pid record -q --mode "$m" -o "$m.trace" -- "$P" 3 300
	cp run.out "$m.rec.out"
	if [ "$RC" = 0 ] && [ "$GOT" = "$NS_PID" ] && workers_recorded "$m.trace"; then
		pass "$m record of a program with pid $NS_PID: every thread's events"
	else
		fail "$m record of a program with pid $NS_PID: every thread's events"
		diag "status $RC, pid ${GOT:-unknown}" "$ERR"
	fi
	"$SPOOL" info "$m.trace" >info.txt 2>&1
	like "$(cat info.txt)" '^lost: 0 events' "$m: nothing lost"
	ns_as_pid replay -q -o rep.trace "$m.trace"
	if [ "$RC" = 0 ] && [ "$GOT" = "$NS_PID" ] && cmp -s run.out "$m.rec.out"; then
		pass "$m replay as pid $NS_PID: the recorded output, status 0"
	else
		fail "$m replay as pid $NS_PID: the recorded output, status 0"
		diag "status $RC, pid ${GOT:-unknown}" "$ERR"
	fi
done

# The case CI met: a recording made with another pid, replayed as 32767.
for m in sync serial; do
	spool_run record -q --mode "$m" -o "o-$m.trace" -- "$P" 3 300
	is_rc 0 "$m record with an ordinary pid"
	cp run.out "o-$m.rec.out"
	ns_as_pid replay -q -o rep.trace "o-$m.trace"
	if [ "$RC" = 0 ] && [ "$GOT" = "$NS_PID" ] && cmp -s run.out "o-$m.rec.out"; then
		pass "$m: its replay as pid $NS_PID gives the recorded output, status 0"
	else
		fail "$m: its replay as pid $NS_PID gives the recorded output, status 0"
		diag "status $RC, pid ${GOT:-unknown}" "$ERR"
	fi
done
done_testing
