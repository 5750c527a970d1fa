#!/bin/bash
# SPDX-License-Identifier: MIT
# 104-exec-after-close.t - programs that exec, as users saw them: a program
# that closed every descriptor above 2 (as daemons do) and then exec'd was
# not traced after the exec, silently; a probed program that exec'd was not
# probed after it, silently. Now spool's descriptor survives close(),
# close_range() and closefrom() (the agent keeps it), and when it is gone
# anyway (a raw system call) the exec'd image opens the region again through
# spool's own descriptor; when even that is impossible, the agent says so.
# Under spool probe, a process that execs its own executable again is
# probed again; an image of another file is traced, not probed: spool says
# so at the end and keeps the count in the trace. The maps of an image that
# exec'd away were replaced by the next image's (one set per pid), so the
# events before the exec were symbolized with the exec'd program's maps
# (raw addresses): the trace keeps one set per image
# (proc/<pid>.exec<K>.*), and reports name them.
. "$(dirname "$0")/lib.sh"

P="$PROGS/closeexec"
if [ ! -x "$P" ]; then
	echo "1..0 # SKIP $P is not built"
	exit 0
fi
plan 20

for how in loop range from raw; do
	spool_run locks -q -- "$P" "$how" "$PROGS/lockcount" 2 500
	is_rc 0 "$how: closeexec closing every descriptor, then exec'ing lockcount, exits 0"
	report_json spool.trace
	is "$(lock_stat report.json shared_lock "$F_ACQ")" 1000 \
		"  the exec'd lockcount is traced (shared_lock: 2 x 500)"
done

spool_run locks -q -- "$P" rawnopath "$PROGS/lockcount" 2 500
is "$OUT" "total=1000" "rawnopath: the exec'd program runs anyway"
like "$ERR" "was closed before this exec and cannot be opened again.*not traced" \
	"  and the agent says it is not traced"

# closeexec (probed) execs itself (the same process, the same file: probed
# again), which execs lockcount (another file: traced, not probed).
spool_run probe -e 'func:closeexec_step' -o p.trace -- "$P" none "$P" loop "$PROGS/lockcount" 2 10
is_rc 0 "probe: closeexec exec'ing itself, then lockcount, exits 0"
like "$ERR" "1 program exec'd during the run .* traced but not probed" \
	"  spool says the exec'd lockcount was not probed"
spool_run info p.trace
like "$OUT" "^execs_unprobed=1" "  and the trace keeps the count"
spool_run report --functions --json p.trace
is "$(json run.out "sum(f['calls'] for f in d['functions'] if f['name'] == 'closeexec_step')")" 2 \
	"  closeexec re-exec'ing itself is probed again (2 calls)"
report_json p.trace
is "$(lock_stat report.json shared_lock "$F_ACQ")" 20 "  the last image is still traced"

# closeexec locks its own mutex, then execs a real program (/bin/sh, which
# runs sort): the lock before the exec is named from closeexec's maps.
spool_run locks -q -o x.trace -- "$P" none /bin/sh -c 'printf "b\na\n" | sort'
is "$(echo $OUT)" "a b" "closeexec exec'ing /bin/sh -c 'printf ... | sort': the program's output"
report_json x.trace
is "$(json report.json "[l['name'] for l in d['locks'] if l['name'] == 'before_exec_lock'][0]")" \
	before_exec_lock "  the lock of the image before the exec is named (it was a raw address)"
like "$(json report.json "[l['init_site'] for l in d['locks'] if l['name'] == 'before_exec_lock'][0]")" \
	"^main\+0x[0-9a-f]+ \(closeexec.c:[0-9]+\)" "  and its first use is in closeexec's main"
XPID=$(json report.json "[l['pid'] for l in d['locks'] if l['name'] == 'before_exec_lock'][0]")
is "$(cat "x.trace/.spool/proc/$XPID.exec0.exe" 2>/dev/null)" "$P" \
	"  the trace keeps the maps of the image before the exec (proc/PID.exec0.*)"
like "$(cat "x.trace/.spool/proc/$XPID.exe" 2>/dev/null)" "(sh|dash)$" \
	"  beside the last image's (proc/PID.*: the shell)"

done_testing
