#!/bin/bash
# SPDX-License-Identifier: MIT
# 253-replay-image-crafted.t - a replay image (TRACE/.spool/replay.img)
# whose header matches its trace but whose body was altered is not used:
# the key only ties an image to its stream files, and whoever made the
# trace can make an image with a matching key. Each crafted body below
# made the replayed program loop or read out of bounds when the image was
# trusted; now the log is loaded from the trace again, the replay gives the
# recorded output and a new image is written (rr_img.c, img_check_body).
. "$(dirname "$0")/lib.sh"

plan 14

BANK="$PROGS/rr_bank"
IMG=bank.trace/.spool/replay.img

spool_run record --mode sync -q -o bank.trace -- "$BANK" 3 2000
is_rc 0 "record rr_bank (sync)"
cp run.out bank.rec.out
SPOOL_DEBUG=1 spool_run replay -q bank.trace
like "$ERR" 'replay image written' "the first replay writes the image"
cp "$IMG" good.img

# hdr FIELD: a field of the image's header (rr_img.c, struct rr_img_hdr).
hdr() {
	python3 - "$IMG" "$1" <<'PY'
import struct, sys
h = open(sys.argv[1], "rb").read(128)
f = {"nthreads": ("<I", 36), "max_objs": ("<I", 40), "norder": ("<Q", 72),
     "threads_off": ("<Q", 88), "first_off": ("<Q", 96), "order_off": ("<Q", 104),
     "log_off": ("<Q", 112)}[sys.argv[2]]
print(struct.unpack_from(f[0], h, f[1])[0])
PY
}

# crafted WHAT OFFSET HEXBYTES: the good image with bytes changed; the
# replay must not use it, and must replay as recorded.
crafted() {
	cp good.img "$IMG"
	poke "$IMG" "$2" "$3"
	SPOOL_DEBUG=1 spool_run replay -q bank.trace
	like "$ERR" 'replay image written' "$1: the image is not used (made again)"
	ok "$1: the replay is the recorded one" \
		test "$RC" = 0 -a -n "$(cmp run.out bank.rec.out && echo same)"
}

LOG=$(hdr log_off)
ORDER=$(hdr order_off)
FIRST=$(hdr first_off)
NTHR=$(hdr nthreads)
# the first record's size (struct rec_hdr: word, tsc, seq, size)
crafted "a record of size 0" $((LOG + 20)) 00000000
crafted "a record longer than its thread's log" $((LOG + 20)) 00000010
# order[0].thread: the holder of a turn, a thread the log does not have
crafted "a turn held by thread 99999" "$ORDER" 9f860100
# first[1] below first[0]: an object's share of order[] that wraps
crafted "an object's turns out of order[]" $((FIRST + 4)) ffffffff
# the first thread's first record says it is another thread's
crafted "a record of another thread" $((LOG + 24)) 01000000

# The good image is still used: the check costs no speed-up.
cp good.img "$IMG"
SPOOL_DEBUG=1 spool_run replay -q bank.trace
like "$ERR" 'the log comes from its replay image' "an unaltered image is still mapped"
is "$NTHR" 4 "the image holds rr_bank's 4 threads (3 and main)"
