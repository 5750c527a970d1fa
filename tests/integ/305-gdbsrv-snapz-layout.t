#!/bin/bash
# SPDX-License-Identifier: MIT
# 305-gdbsrv-snapz-layout.t - a `spool replay --gdbserver` of a recording
# with snapshots loads libzstd where the recording did, so the program's
# later mappings are the recording's (doc/record.md "Snapshots"). The
# recording (serial, snapshots on by default) loads libzstd as the agent
# starts; its replays do too (snapz=1). Under the gdbserver they did not:
# gdb stops inside that dlopen for its library events, and a checkpoint
# taken there (a copy of the process) held the loader's lock under the id
# of a thread it does not have, and waited for it for good; gdb never got
# to its first breakpoint (tests/integ/224). Now no checkpoint is taken
# while a thread is in the loader. Checkpoints at every stop
# (SPOOL_GDBSRV_CHECKPOINT_MS=0), as 224 has them: gdb reaches a breakpoint
# after rr_layout's mappings are made, and the addresses it prints there
# are those the recording printed.
. "$(dirname "$0")/lib.sh"

need_gdb
plan 6

BIN="$PROGS/rr_layout"
SRC="$REPO/tests/progs/rr_layout.c"
LINE=$(grep -n 'printf("big %p mmap %p' "$SRC" | cut -d: -f1)

spool_run record -o rec -- "$BIN"
is_rc 0 "record rr_layout (serial mode, snapshots on by default)"
like "$(cat rec/.spool/record 2>/dev/null)" 'snapz=1' "... the recording loaded libzstd as the agent started"
WANT=$(grep '^big ' run.out)

SPOOL_GDBSRV_CHECKPOINT_MS=0 timeout -k 5 120 gdb -q -batch -nx \
	-ex "target remote | $SPOOL replay --gdbserver - rec" \
	-ex "break rr_layout.c:$LINE" -ex continue \
	-ex 'printf "GOT big %p mmap %p\n", big, map' \
	-ex 'info sharedlibrary' -ex kill "$BIN" >gdb.out 2>&1
GRC=$?
check_sanitizer gdb.out "gdb on spool replay --gdbserver"
isnt_timeout() { [ "$GRC" != 124 ] && [ "$GRC" != 137 ]; }
ok "gdb's session ends (no hang: exit $GRC)" isnt_timeout
like "$(cat gdb.out)" "Breakpoint 1, main .*rr_layout.c:$LINE" \
	"gdb reaches its breakpoint with a checkpoint at every stop"
like "$(grep -A40 'From' gdb.out)" 'libzstd\.so' "the gdbserver's replay has libzstd loaded, as the recording had"
GOT=$(sed -n 's/^GOT //p' gdb.out)
is "$GOT" "$WANT" "the program's later mappings are where the recording had them ($WANT)"

done_testing
