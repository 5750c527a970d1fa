#!/bin/bash
# SPDX-License-Identifier: MIT
# 206-install-target.t - make install-target DESTDIR=DIR installs only what
# a board needs (spool, the agent, the progress library: no man pages,
# docs, spool cc, headers or gdb script), and the installed spool works from
# there: it finds its agent in ../lib/spool and profiles a program.
. "$(dirname "$0")/lib.sh"

plan 5

board="$T_DIR/board"
make -s -C "$REPO" O="$SPOOL_BUILD" install-target DESTDIR="$board" PREFIX=/usr >make.out 2>&1
RC=$?
is_rc 0 "make install-target DESTDIR=DIR exits 0"
files="$(cd "$board" && find . -type f | sort | tr '\n' ' ')"
is "$files" "./usr/bin/spool ./usr/lib/spool/libspool-agent.so ./usr/lib/spool/libspool-progress.so " \
	"  it installs spool, the agent and the progress library, nothing else"
unlike "$(cd "$board" && find . | tr '\n' ' ')" 'man|share|include|ccopt|gdb' "  no man pages, docs, headers, spool cc or gdb script"

SPOOL="$board/usr/bin/spool"
spool_run locks -q -o t.trace -- "$PROGS/lockcount" 2 100
is_rc 0 "the installed spool runs spool locks (its agent found in ../lib/spool)"
SPOOL="$SPOOL_BUILD/spool"
spool_run report --locks --json t.trace
like "$OUT" '"acquisitions": *200|"acq": *200' "  and the trace has the program's 200 acquisitions of its shared lock"

done_testing
