#!/bin/bash
# SPDX-License-Identifier: MIT
# 58-replay-image.t - the replay image (TRACE/.spool/replay.img): the first
# replay of a recording keeps its loaded log there and later replays map it
# instead of decoding the trace (src/replay/rr_img.c). Replays from the
# image give the recorded output and schedule, in sync and serial mode; a
# trace changed after its image was made is loaded again (and its damage
# reported), a broken image is rebuilt, an image that cannot be written
# costs nothing but the speed-up, and --no-image neither reads nor writes it.
# The data a program read stays in the trace's streams: neither the image
# nor the shared area holds a second copy (RR_INPUT_REF, rr_area.h).
. "$(dirname "$0")/lib.sh"

plan 31

BANK="$PROGS/rr_bank"
IMG=bank.trace/.spool/replay.img

spool_run record --mode sync -q -o bank.trace -- "$BANK" 4 3000
is_rc 0 "record rr_bank (sync)"
cp run.out bank.rec.out
"$SPOOL" replay --dump-schedule bank.trace >bank.rec.sched 2>/dev/null
ok "a recording has no image before its first replay" test ! -e "$IMG"

SPOOL_DEBUG=1 spool_run replay -q --trace-schedule -o rep.trace bank.trace
ok "the first replay prints the recorded output" \
	test "$RC" = 0 -a -n "$(cmp run.out bank.rec.out && echo same)"
like "$ERR" 'replay image written' "the first replay writes the image"
ok "the image is in the trace" test -s "$IMG"

SPOOL_DEBUG=1 spool_run replay -q --trace-schedule -o rep.trace bank.trace
like "$ERR" 'the log comes from its replay image' "the second replay maps the image"
unlike "$ERR" 'replay image written' "and does not write it again"
is "$RC" 0 "a replay from the image exits with the recorded status"
ok "a replay from the image prints the recorded output" cmp -s run.out bank.rec.out
"$SPOOL" replay --dump-schedule rep.trace >rep.sched 2>/dev/null
ok "a replay from the image takes every turn in the recorded order" cmp -s rep.sched bank.rec.sched
replays_same 3 0 bank.rec.out -q bank.trace
is "$SAME" 3 "3 more replays from the image, same output"

# Without --trace-schedule the replay's trace has no schedule (each event
# was checked against the recording as it was replayed).
spool_run replay -q -o plain.trace bank.trace
ok "a replay without --trace-schedule exits with the recorded status" test "$RC" = 0
is "$("$SPOOL" replay --dump-schedule plain.trace 2>/dev/null | grep -c '^sched')" 0 \
	"and writes no schedule records into its own trace"

# --no-image: the trace's streams, no image read or written.
SPOOL_DEBUG=1 spool_run replay -q --no-image bank.trace
unlike "$ERR" 'replay image' "--no-image neither maps nor writes the image"
ok "--no-image replays the same" cmp -s run.out bank.rec.out

# A copy is another set of files: its image is made again, not trusted.
cp -r bank.trace copy.trace
SPOOL_DEBUG=1 spool_run replay copy.trace
like "$ERR" 'replay image written' "a copied trace gets its image made again"
like "$ERR" "log is kept in copy.trace/.spool/replay.img \\([0-9.]+ MB\\)" \
	"and a replay that writes one says where and how big"
ok "and replays the same" cmp -s run.out bank.rec.out

# A stream damaged after the image was made: the trace is loaded again and
# the damage reported, never a replay from the stale image.
s=$(largest_stream copy.trace)
truncate -s $(($(stat -c %s "$s") / 2)) "$s"
spool_run replay -q copy.trace
is "$RC" 1 "a trace truncated after its image was made is refused (exit 1)"
like "$ERR" 'damaged|lost' "with what is wrong with it"

# A broken image (its magic overwritten) is rebuilt.
poke "$IMG" 0 00000000
SPOOL_DEBUG=1 spool_run replay -q bank.trace
like "$ERR" 'replay image written' "a broken image is made again"
ok "and the replay is the recorded one" test "$RC" = 0 -a -n "$(cmp run.out bank.rec.out && echo same)"

# An image that cannot be written (its name is taken by a directory).
rm -rf nowrite.trace && cp -r bank.trace nowrite.trace
rm -f nowrite.trace/.spool/replay.img && mkdir -p nowrite.trace/.spool/replay.img/x
spool_run replay -q nowrite.trace
ok "a recording whose image cannot be written replays all the same" \
	test "$RC" = 0 -a -n "$(cmp run.out bank.rec.out && echo same)"
ok "and leaves no temporary file" test -z "$(ls nowrite.trace/.spool | grep tmp)"

# Serial mode: the token's schedule (sw[]) comes from the image too.
spool_run record -q -o ser.trace -- "$PROGS/rr_pc" 2 2 500
cp run.out ser.rec.out
spool_run replay -q ser.trace
ok "serial: the first replay prints the recorded output" cmp -s run.out ser.rec.out
SPOOL_DEBUG=1 spool_run replay -q ser.trace
like "$ERR" 'the log comes from its replay image' "serial: the second replay maps the image"
ok "serial: a replay from the image prints the recorded output" \
	test "$RC" = 0 -a -n "$(cmp run.out ser.rec.out && echo same)"

# Input data is read from the trace's stream files, not copied into the
# image: dd's 3 MB of input leave an image of a few kilobytes.
head -c 3000000 /dev/urandom >in.bin
RUN_STDIN=in.bin spool_run record -q --mode sync -o cat.trace -- dd bs=65536 status=none
ok "dd: record 3 MB of input" cmp -s run.out in.bin
RUN_STDIN=/dev/null SPOOL_DEBUG=1 spool_run replay -q cat.trace
ok "dd: the first replay writes the input back byte for byte" \
	test "$RC" = 0 -a -n "$(cmp run.out in.bin && echo same)"
num_cmp "$(stat -c %s cat.trace/.spool/replay.img)" -lt 300000 \
	"dd: the image holds where the input is, not the input ($(stat -c %s cat.trace/.spool/replay.img) bytes)"
RUN_STDIN=/dev/null replays_same 2 0 in.bin -q cat.trace
is "$SAME" 2 "dd: replays from the image write the input back too"

done_testing
