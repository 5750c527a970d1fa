#!/bin/bash
# SPDX-License-Identifier: MIT
# 57-record-compress.t - spool record --compress: the large chunks of input
# data (what reads returned) are written packed with zstd (op
# INPUT_OP_ZSTD, src/trace/zinput.c); they stay packed in the trace, and
# the agent unpacks each one when the replayed program reads it (in sync
# and serial mode, from the replay image or not), so the image stays small.
# Data that does not shrink stays as it is, and a packed record that does
# not unpack (each frame has a checksum) is reported as damage before the
# program runs.
. "$(dirname "$0")/lib.sh"

plan 15

# 3 MB of text that packs well, read by dd from stdin
python3 -c "
import random
r = random.Random(7)
w = [''.join(r.choice('abcdefgh') for _ in range(r.randint(2, 8))) for _ in range(300)]
print(' '.join(r.choice(w) for _ in range(600000)))" >text.txt
size=$(stat -c %s text.txt)

for mode in sync serial; do
	RUN_STDIN=text.txt spool_run record -q --compress --mode "$mode" -o "$mode.trace" -- dd bs=65536 status=none
	ok "$mode: record --compress dd of ${size} bytes" test "$RC" = 0 -a -n "$(cmp run.out text.txt && echo same)"
	streams=$(cat "$mode.trace"/stream_* | wc -c)
	num_cmp "$streams" -lt $((size / 2)) \
		"$mode: the trace's streams hold the input packed ($streams bytes for $size)"
	RUN_STDIN=/dev/null replays_same 2 0 text.txt -q "$mode.trace"
	is "$SAME" 2 "$mode: two replays write the input back (the first writes the image, the second maps it)"
	img=$(stat -c %s "$mode.trace/.spool/replay.img" 2>/dev/null || echo 0)
	ok "$mode: the replay image leaves the chunks packed in the trace ($img bytes)" \
		test "$img" -gt 0 -a "$img" -lt $((size / 4))
	RUN_STDIN=/dev/null replays_same 1 0 text.txt -q --no-image "$mode.trace"
	is "$SAME" 1 "$mode: so does a replay that loads the recording (--no-image)"
done

# The schedule dump sees the reads' lengths as they were.
"$SPOOL" replay --dump-schedule sync.trace >dump.txt 2>/dev/null
ok "the dump lists dd's reads" grep -q '^input thread 0 .* call 1 ' dump.txt

# Random data does not shrink: it stays as it is, and replays the same.
head -c 1000000 /dev/urandom >rand.bin
RUN_STDIN=rand.bin spool_run record -q --compress --mode sync -o rand.trace -- dd bs=65536 status=none
streams=$(cat rand.trace/stream_* | wc -c)
num_cmp "$streams" -ge 1000000 "random input is kept as it is ($streams bytes)"
RUN_STDIN=/dev/null replays_same 1 0 rand.bin -q --no-image rand.trace
is "$SAME" 1 "and replays the same"

# A packed record damaged inside its frame (the trace's own checks pass):
# the replay refuses the recording, naming the damage.
cp -r sync.trace bad.trace
rm -f bad.trace/.spool/replay.img
s=$(largest_stream bad.trace)
off=$(python3 - "$s" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'\x28\xb5\x2f\xfd')  # a zstd frame's magic
print(i + 40 if i >= 0 else -1)
PY
)
if [ "$off" -gt 0 ]; then
	poke "$s" "$off" ffffffffffffffffffffffffffffffff
	spool_run replay -q --no-image bad.trace
	is "$RC" 1 "a packed record that does not unpack: the replay refuses the recording"
	like "$ERR" 'compressed input record does not unpack|damaged' "and says what is damaged"
else
	fail "no zstd frame found in $s"
	fail "(skipped with the above)"
fi

done_testing
