#!/bin/bash
# SPDX-License-Identifier: MIT
# 31-a64-stream.t - the host/target split's streaming: spool's aarch64
# build (the "board", under qemu-user) profiles locks and records a racy
# program with --stream to the host's spool receive; the host reports and
# inspects what it received, the board keeps nothing.
. "$(dirname "$0")/lib.sh"

plan 9

start_receiver() {
	rm -f recv.err
	"$HOST_SPOOL" receive --port 0 --bind 127.0.0.1 -o "$1" >recv.out 2>recv.err &
	RPID=$!
	wait_for 'receiving on' recv.err 15
	PORT="$(sed -n 's/.*receiving on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' recv.err)"
}

start_receiver host.trace
spool_run locks --stream "127.0.0.1:$PORT" -o board.trace -- "$PROGS/lockcount" 2 500
is_rc 0 "the aarch64 spool locks --stream exits 0"
ok "  the board keeps nothing" test ! -e board.trace
wait "$RPID"
RC=$? is_rc 0 "the host's spool receive exits 0"
SPOOL="$HOST_SPOOL" report_json host.trace
is "$(lock_stat report.json shared_lock acquisitions)" 1000 "  the host reports the board's 1000 acquisitions"

start_receiver host.rec
spool_run record --stream "127.0.0.1:$PORT" --chaos --until-fail 100 -o board.rec -- \
	"$PROGS/rr_race_counter-finst" 2 1000
is_rc 1 "the aarch64 spool records a failing run of a racy counter with --stream"
rec_out="$OUT"
wait "$RPID"
RC=$? is_rc 0 "  the host receives it"
host_run info host.rec
is_rc 0 "  the host's copy is whole"
# replayed by the aarch64 spool from the host's copy (as a board would,
# given the recording back): the same failing output
spool_run replay -q -o rep.trace host.rec
is_rc 1 "the received recording replays (aarch64 spool) to the same failure"
is "$OUT" "$rec_out" "  printing what the recording printed"

done_testing
