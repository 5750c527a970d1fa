#!/bin/bash
# SPDX-License-Identifier: MIT
# 107-gdb-trace-commands.t - `set replay-mode on` in gdb (spool's extension,
# spool-gdb.py) ran a shell command written in a trace: the recorded
# arguments went into one gdb.execute("set args ...") string, and gdb runs
# each line of it as a command, so an argument "x<newline>shell CMD #" ran
# CMD. The extension also read the trace's side files with a plain open:
# a FIFO hung gdb, a link was followed. It now refuses arguments with a
# line break (spool replay --gdb passes them whole), reads side files as
# spool's reader does, and escapes the recorded binary's name it prints.
. "$(dirname "$0")/lib.sh"

if ! command -v gdb >/dev/null 2>&1; then
	echo "1..0 # SKIP gdb is not installed"
	exit 0
fi

plan 7

EXT="${SPOOL_GDB_SCRIPT:-$SPOOL_BUILD/spool-gdb.py}"
[ -r "$EXT" ] || EXT="$REPO/src/replay/spool-gdb.py"

# replay_mode TRACE: gdb with the extension, replay-mode on for TRACE, then
# the arguments it set; gdb's output in gdb.out.
replay_mode() {
	timeout -k 5 20 gdb -q -batch -nx -x "$EXT" -ex "set spool-trace $1" \
		-ex 'set replay-mode on' -ex 'show args' /bin/true >gdb.out 2>&1
	GRC=$?
}

spool_run record -q -o rec -- "$PROGS/lockcount" 2 5
is_rc 0 "a recording"
pid=$(sed -n 's/^pid=//p' rec/.spool/record)

# crafted: a copy of the recording
crafted() {
	rm -rf "$1"
	cp -a rec "$1"
}

crafted nl.trace
printf 'lockcount\0x\nshell touch PWNED-%s #\0' $$ >nl.trace/.spool/proc/"$pid".cmdline
replay_mode nl.trace
if [ -e "PWNED-$$" ]; then
	fail "an argument with a line break does not run as a gdb command"
else
	pass "an argument with a line break does not run as a gdb command"
fi
like "$(cat gdb.out)" 'line break.*not set' "  and gdb says the arguments were not set"

crafted fifo.trace
rm fifo.trace/.spool/proc/"$pid".cmdline
mkfifo fifo.trace/.spool/proc/"$pid".cmdline
replay_mode fifo.trace
is "$GRC" 0 "a FIFO as the command line does not hang gdb"

crafted link.trace
sed "s|^exe=.*|exe=/bin/true|" rec/.spool/record >elsewhere
printf 'true\0SECRET-%s\0' $$ >"elsewhere.cmdline"
ln -sf "$PWD/elsewhere" link.trace/.spool/record
ln -sf "$PWD/elsewhere.cmdline" link.trace/.spool/proc/"$pid".cmdline
replay_mode link.trace
unlike "$(cat gdb.out)" "SECRET-$$" "side files that are links are not followed"

crafted esc.trace
sed -i $'s|^exe=.*|exe=/x/\e]0;PWNED\a\e[2J|' esc.trace/.spool/record
replay_mode esc.trace
if LC_ALL=C grep -q $'\e' gdb.out; then
	fail "the recorded binary's name is printed without its escape sequences"
else
	pass "the recorded binary's name is printed without its escape sequences"
fi
like "$(cat gdb.out)" 'recording.s is /x/\\x1b\]0;PWNED' "  escaped"

done_testing
