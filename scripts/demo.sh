#!/bin/bash
# SPDX-License-Identifier: MIT
# demo.sh BUILD_DIR - a short tour of spool (make demo): profile a contended
# program with `spool locks`, find a lock-order inversion, read the report
# back as JSON, export for Perfetto UI, read the same trace with babeltrace2;
# then record a racy program until it fails and replay the failure, print its
# thread path, probe an unmodified program, and build a program's trace
# calls with spool cc and decode them back. Runs in a temporary directory,
# which it removes at the end.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: demo.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
spool="$build/spool"
progs="$build/tests/progs"
src=$(cd "$(dirname "$0")/.." && pwd)
for f in "$spool" "$progs/lockcount" "$progs/inversion" "$progs/rr_race_counter-finst" \
	"$progs/probe_calls"; do
	if [ ! -x "$f" ]; then
		echo "demo.sh: $f is not built (make all progs)" >&2
		exit 1
	fi
done

work=$(mktemp -d /tmp/spool-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# step TITLE LINES...: a heading and a few lines of explanation.
step() {
	echo
	echo "=== $1"
	shift
	[ $# -eq 0 ] || printf '    %s\n' "$@"
}

# show CMD...: print the command the way a user would type it, then run it.
show() {
	echo "\$ $*" | sed "s|$build/tests/progs/|./|g; s|$build/spool|spool|g; s|$src/|spool/|g"
	"$@" 2>&1
}

# show_quiet CMD...: like show, the command's stdout (a program's output) dropped.
show_quiet() {
	echo "\$ $* >/dev/null" | sed "s|$build/tests/progs/|./|g; s|$build/spool|spool|g; s|$src/|spool/|g"
	"$@" 2>&1 >/dev/null
}

step "1. Profile a program" \
	"4 threads share one mutex and hold it 200 us each time, so they wait for each" \
	"other. The program's output is its own; spool's report goes to stderr at exit."
show "$spool" locks -- "$progs/lockcount" 4 500 200

step "2. Find a lock-order inversion" \
	"One thread takes lock_a then lock_b, a later one lock_b then lock_a. This run" \
	"cannot deadlock (the threads never overlap), but another could: spool reports" \
	"the cycle with both call sites."
show "$spool" locks -o inversion.trace -- "$progs/inversion"

step "3. Read the report again, as JSON" \
	"The trace stays on disk; spool report prints it again (JSON on stdout)."
show "$spool" report --locks --json spool.trace | head -n 30

step "4. Export a timeline" \
	"For Perfetto UI: open the file at https://ui.perfetto.dev."
show "$spool" export --perfetto -w lockcount.pftrace spool.trace && ls -l lockcount.pftrace

step "5. Read the trace without spool" \
	"The trace is plain CTF 1.8: babeltrace2 reads it."
if command -v babeltrace2 >/dev/null; then
	show babeltrace2 spool.trace | head -n 12
else
	echo "(babeltrace2 is not installed: scripts/deps.sh installs it)"
fi

step "6. Record a racy program until it fails" \
	"Two threads add to a shared counter without a lock; most runs lose no update." \
	"Serial mode runs one thread at a time and --chaos switches them at random" \
	"points, so a lost update shows up within a few runs; the failing run is kept."
show "$spool" record --chaos --until-fail 200 -o race.trace -- "$progs/rr_race_counter-finst" 2 1000

step "7. Replay it: the same lost updates, every time" \
	"The replay follows the recorded schedule and feeds back the recorded inputs."
for i in 1 2 3; do
	show "$spool" replay -q -o replay.trace race.trace
done

step "8. The thread path of the failing run" \
	"(thread, function, object) records in time order, and the functions the run" \
	"never entered (spool path replays the recording to get its function entries)."
show "$spool" path -q -w race.path race.trace
head -n 8 race.path
show "$spool" path -q --check race.trace | head -n 5

step "9. Probe a program that was never rebuilt" \
	"Jumps to trampolines patched into the running code, a few ns a hit; a function" \
	"too short for a jump gets a breakpoint (microseconds a hit). --list says which."
show_quiet "$spool" probe -o probe.trace -e 'func:probe_*' -- "$progs/probe_calls" 200
show "$spool" probe --list -e 'func:probe_*' "$progs/probe_calls" | head -n 6

if command -v clang-14 >/dev/null && [ -x "$build/spool-ccopt" ]; then
	step "10. Cheaper trace calls with spool cc" \
		"spool cc merges a program's own SPOOL_TRACE calls; spool decode gives back" \
		"exactly the events the plain build writes."
	show "$spool" cc -O2 -I"$src/include" "$src/tests/cc/bank.c" -o bank
	show_quiet "$spool" locks -q -o bank.trace -- ./bank 100
	show "$spool" decode bank.trace | head -n 5
	show "$spool" cc --explain -O2 -I"$src/include" "$src/tests/cc/bank.c" | head -n 12
fi

echo
echo "=== done. Try: spool locks --stacks 8 --sort hold -- YOUR_PROGRAM"
echo "         or: spool record --chaos --until-fail 100 -- YOUR_PROGRAM; spool replay"
