#!/bin/bash
# SPDX-License-Identifier: MIT
# 171-stale-writing-trace.t - a spool killed mid-run leaves its partial
# trace as DIR.writing.PID (a trace is renamed to DIR only when whole), and
# nothing ever told the user: it stayed there, unseen. Now the next spool
# that writes DIR names it at its start with how to read it (spool info,
# which says it is incomplete) and how to finish with it: spool recover
# marks it unfinished and renames it to a free name (DIR.unfinished,
# DIR.unfinished.1), spool recover --remove deletes it. Nothing is removed
# or renamed unless asked, and only a directory that is a trace spool wrote,
# unfinished, whose spool no longer runs: never by its name alone (a user's
# directory named like one, a finished trace, a trace being written are
# refused and left as they were).
. "$(dirname "$0")/lib.sh"

plan 26

# kill_spool DIR: spool locks -o DIR -- passthrough 0, SIGKILL to spool once
# its collector flushed a packet, then the program is let go. PART is the
# partial trace it left.
kill_spool() {
	local dir="$1" sp
	rm -f in.fifo
	mkfifo in.fifo
	"$SPOOL" locks -q -o "$dir" -- "$PROGS/passthrough" 0 <in.fifo >k.out 2>k.err &
	sp=$!
	exec 3>in.fifo
	echo hello >&3
	wait_for hello k.out 20
	PART="$dir.writing.$sp"
	for _ in $(seq 100); do
		find "$PART" -maxdepth 1 -name 'stream_*' -size +0 2>/dev/null | grep -q . && break
		sleep 0.05
	done
	kill -KILL "$sp"
	wait "$sp" 2>/dev/null
	exec 3>&-
	check_sanitizer k.err "spool locks (killed)"
}

kill_spool k.trace
ok "a killed spool left its partial trace $PART" test -d "$PART"
FIRST="$PART"

spool_run locks -q -o k.trace -- "$PROGS/lockcount" 2 100
is_rc 0 "the next spool writing k.trace runs"
like "$ERR" "warning: k.trace.writing.[0-9]+/ is the unfinished trace of a spool that did not end" \
	"  and names the partial trace of the killed one"
like "$ERR" "'spool info $FIRST' reads it, 'spool recover $FIRST' keeps it .*'spool recover --remove $FIRST' deletes it" \
	"  with how to read it, keep it or remove it"
ok "  and leaves it where it is" test -d "$FIRST"
ok "  its own trace is at k.trace" test -f k.trace/metadata

spool_run info "$FIRST"
is_rc 4 "spool info reads the partial trace: exit 4 (incomplete)"
like "$OUT" "^writer: did not finish" "  it says its writer did not finish"

# A finished trace, a directory of the user's named like a partial trace,
# a name that is not one: refused, left as they were.
mkdir -p proj.writing.4242
echo 'int main;' >proj.writing.4242/main.c
spool_run recover --remove proj.writing.4242
is_rc 1 "recover --remove refuses a directory that is not a spool trace"
is "$(cat proj.writing.4242/main.c 2>&1)" "int main;" "  the user's file is untouched"
like "$ERR" "proj.writing.4242 is a directory that is not a spool trace .*left as it is" "  and says why"
spool_run recover --remove k.trace
is_rc 1 "recover --remove refuses a finished trace"
ok "  it is still there" test -f k.trace/metadata
spool_run locks -q -o proj -- true
unlike "$ERR" "proj.writing.4242" "a spool writing proj does not take the user's proj.writing.4242 for a partial trace"
rm -rf proj proj.old

# A partial trace being written by a running spool is not stale.
rm -f hold.fifo
mkfifo hold.fifo
"$SPOOL" locks -q -o live.trace -- "$PROGS/passthrough" 0 <hold.fifo >l.out 2>l.err &
LSP=$!
exec 4>hold.fifo
for _ in $(seq 100); do [ -d "live.trace.writing.$LSP" ] && break; sleep 0.05; done
spool_run recover "live.trace.writing.$LSP"
is_rc 1 "recover refuses the trace a running spool is writing"
like "$ERR" "still being written by a running spool" "  and says why"
spool_run locks -q -o live.trace -- true
unlike "$ERR" "unfinished trace of a spool" "a spool writing the same DIR does not call a live writer's trace stale"
exec 4>&-
wait "$LSP"
is "$?" 0 "  the running spool finishes (exit 0)"

# recover: marked unfinished, renamed to the first free name.
spool_run recover "$FIRST"
is_rc 0 "spool recover keeps the partial trace"
ok "  as k.trace.unfinished" test -f k.trace.unfinished/metadata
ok "  no longer under its .writing name" test ! -e "$FIRST"
spool_run info k.trace.unfinished
is "$RC $(grep -c '^writer: did not finish' run.out)" "4 1" "  spool info still says it is incomplete (exit 4)"

kill_spool k.trace
spool_run recover "$PART"
is "$RC $(ls -d k.trace.unfinished* | tr '\n' ' ')" "0 k.trace.unfinished k.trace.unfinished.1 " \
	"a second one goes to k.trace.unfinished.1, the first is kept"

kill_spool k.trace
SECOND="$PART"
spool_run recover --remove "$SECOND"
is_rc 0 "spool recover --remove deletes a partial trace"
ok "  it is gone" test ! -e "$SECOND"
spool_run locks -q -o k.trace -- true
unlike "$ERR" "unfinished trace of a spool" "once finished with, no partial trace is named any more"

done_testing
