#!/bin/bash
# SPDX-License-Identifier: MIT
# 262-replay-inherited-fds.t - a plain `spool replay` gives the program the
# descriptors the recorded one inherited (stand-ins at their numbers) and
# none of spool's own. A descriptor the program opens gets the lowest free
# number: a replay started from a shell with descriptors 3 and 4 open (a
# build tool's jobserver, a test harness's log) gave diff the numbers 5 and
# 6 where it had recorded 3 and 4, and stopped at its first read ("the same
# call was made on another descriptor number"); a recording made with 3
# open replayed from a shell without it the other way round. The program is
# Debian's diff, which opens both files it compares.
. "$(dirname "$0")/lib.sh"

A=/etc/hostname
B=/etc/shells
if ! [ -r "$A" ] || ! [ -r "$B" ]; then
	echo "1..0 # SKIP needs $A and $B"
	exit 0
fi
plan 10

# recorded with nothing inherited, replayed with 3 and 4 open
spool_run record -q -o plain.trace -- diff "$A" "$B"
is_rc 1 "record diff: its status (the files differ)"
cp run.out plain.out
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q plain.trace 3</dev/null 4>/dev/null \
	<"$RUN_STDIN" >run.out 2>run.err
RC=$?
check_sanitizer run.err "spool replay"
is_rc 1 "replay with 3 and 4 open in spool: diff's status"
cmp -s run.out plain.out
is "$?" 0 "  and its output, byte for byte" || show_run
unlike "$(cat run.err)" "another descriptor number|diverged" "  no divergence"

# recorded with 3 and 7 inherited, replayed without them
(exec 3</dev/null 7</dev/null
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q -o inh.trace -- diff "$A" "$B" \
		<"$RUN_STDIN" >run.out 2>run.err)
RC=$?
is_rc 1 "record diff with 3 and 7 inherited"
# (and what the harness leaves open besides)
is "$(sed -n 's/^fds=//p' inh.trace/.spool/record | tr , '\n' | grep -cxE '3|7')" 2 \
	"  the recording notes them"
cp run.out inh.out
spool_run replay -q inh.trace
is_rc 1 "replay without them: diff's status"
cmp -s run.out inh.out
is "$?" 0 "  and its output, byte for byte" || show_run
unlike "$ERR" "another descriptor number|diverged" "  no divergence"

# the program sees stand-ins, not spool's descriptor: with 3 open on a
# file of the user's, the replay's writes never reach it
echo keep >mine.txt
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q inh.trace 3>>mine.txt <"$RUN_STDIN" >/dev/null 2>&1
is "$(cat mine.txt)" keep "the user's file open as 3 in spool's shell is untouched"

done_testing
