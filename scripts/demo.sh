#!/bin/bash
# SPDX-License-Identifier: MIT
# demo.sh BUILD_DIR - a short tour of `spool locks` (make demo): profile a
# contended program, find a lock-order inversion, read the report back as
# JSON, export for Perfetto UI, and read the same trace with babeltrace2.
# Runs in a temporary directory, which it removes at the end.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: demo.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
spool="$build/spool"
progs="$build/tests/progs"
for f in "$spool" "$progs/lockcount" "$progs/inversion"; do
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
	echo "\$ $*" | sed "s|$build/tests/progs/|./|g; s|$build/spool|spool|g"
	"$@"
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
show "$spool" export --perfetto -o lockcount.pftrace spool.trace && ls -l lockcount.pftrace

step "5. Read the trace without spool" \
	"The trace is plain CTF 1.8: babeltrace2 reads it."
if command -v babeltrace2 >/dev/null; then
	show babeltrace2 spool.trace | head -n 12
else
	echo "(babeltrace2 is not installed: scripts/deps.sh installs it)"
fi

echo
echo "=== done. Try: spool locks --stacks 8 --sort hold -- YOUR_PROGRAM"
