# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # variables used by the sourcing tests
# lib.sh - helpers for the tests on real programs from Debian (tests/real/*.t
# and tests/real/quick/*.t), on top of tests/integ/lib.sh (TAP, spool_run,
# the summary and JSON helpers, the temporary directory).
#
# The programs here were not written for spool: Debian's sqlite3, pigz,
# python3, git, nginx, x264 ... as a user has them. A test compares what the
# program does under spool with what it does alone (output, exit status,
# files), and checks what spool says about it. tests/real/quick/ runs in
# `make check` (programs scripts/deps.sh installs, a few seconds in all);
# the rest runs in `make check-real` (scripts/deps.sh --real installs them).

# The repository, found before integ/lib.sh leaves for the temporary
# directory (it computes its own REPO from $0, which is one level off for
# tests/real/quick/).
_real_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../integ/lib.sh
. "$_real_repo/tests/integ/lib.sh"
REPO="$_real_repo"
unset _real_repo

# Debian's interpreter, not whatever `python3` is first in PATH (a pyenv
# shim is a shell script that forks, and spool record refuses a program
# that forks).
REAL_PY=/usr/bin/python3

# need_progs PROG...: skips the whole file when one of the programs is not
# installed (named in the skip reason: prove shows it as skipped, not as a
# pass). make check-real installs them first (scripts/deps.sh --real).
need_progs() {
	local p missing=()
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "1..0 # SKIP not installed: ${missing[*]} (scripts/deps.sh --real installs them)"
		exit 0
	fi
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	"$REAL_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wall CMD...: runs CMD, leaves its status in $RC and its wall-clock time
# in seconds in $WALL. Figures only: timing is never asserted (DESIGN.md),
# the tests print them as diagnostics so a run's log has them.
wall() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@"
	RC=$?
	t1=$(date +%s.%N)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

# tree_state DIR: a fingerprint of everything under DIR (paths, types,
# modes, sizes, contents), to show a directory is exactly as it was.
tree_state() {
	(cd "$1" && find . -printf '%p %y %m %s\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# info_lost DIR: the loss count `spool info DIR` prints ("lost: N events");
# empty when it prints none.
info_lost() {
	"$SPOOL" info "$1" 2>/dev/null | sed -n 's/^lost: \([0-9]*\) events.*/\1/p' | head -n 1
}
