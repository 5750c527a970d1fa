#!/bin/bash
# SPDX-License-Identifier: MIT
# 254-stream-no-keep.t - spool locks --stream HOST:PORT --no-keep: while the
# program still runs, the board's stream files hold only what the receiver
# has not confirmed (the rest is punched out: their blocks on the disk are a
# small part of their size); the host's copy is whole (spool info, the
# report's counts); --no-keep without --stream is a usage error.
. "$(dirname "$0")/lib.sh"

plan 10

start_receiver() {
	rm -f recv.err
	"$SPOOL" receive --port 0 --bind 127.0.0.1 -o "$1" >recv.out 2>recv.err &
	RPID=$!
	wait_for 'receiving on' recv.err 15
	PORT="$(sed -n 's/.*receiving on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' recv.err)"
}

start_receiver host.trace
# the program: 2 x 200000 acquisitions, then (spool still running) it
# measures the board's largest stream file: its size and the KiB it takes
# on the disk, once the sender has had its confirmations (at most 20 s)
cat >measure.sh <<'SH'
"$1" 2 200000
for i in $(seq 1 200); do
	f="$(ls -S board.trace.writing.*/stream_* | head -n1)"
	size=$(stat -c %s "$f")
	kib=$(du -k "$f" | cut -f1)
	[ "$kib" -lt $((size / 1024 / 4)) ] && break
	sleep 0.1
done
echo "$size $kib" >measured
SH
spool_run locks --no-keep --stream "127.0.0.1:$PORT" -o board.trace -- sh measure.sh "$PROGS/lockcount"
is_rc 0 "spool locks --stream --no-keep exits 0"
like "$ERR" 'bytes of trace sent to .*\([0-9]+ freed as the receiver confirmed them' "  it says what it freed"
freed="$(printf '%s\n' "$ERR" | sed -n 's/.*(\([0-9]*\) freed as.*/\1/p')"
like "$ERR" 'no-keep: no report here' "  no report on the board (it is made on the host)"
read -r size kib <measured
diag "the board's largest stream file while the program ran: $size bytes, $kib KiB on the disk; $freed bytes freed in all"
if [ "${freed:-0}" = 0 ] && [ "${size:-0}" -gt 0 ]; then
	skip "this file system cannot punch holes (fallocate): nothing freed" 1
else
	num_cmp "$kib" -lt $((size / 1024 / 4)) "  while the program ran, its largest stream file took less than a quarter of its size on the disk"
fi
ok "  the board keeps nothing at the end" test ! -e board.trace
wait "$RPID"
RC=$? is_rc 0 "spool receive exits 0"
spool_run info host.trace
is_rc 0 "the host's copy is whole (spool info exits 0)"
report_json host.trace
is "$(lock_stat report.json shared_lock acquisitions)" 400000 "  its report counts the program's 400000 acquisitions"

spool_run locks --no-keep -o none.trace -- "$PROGS/lockcount" 2 10
is_rc 2 "--no-keep without --stream: a usage error"
like "$ERR" 'no-keep is for --stream' "  that says why"

done_testing
