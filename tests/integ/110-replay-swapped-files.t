#!/bin/bash
# SPDX-License-Identifier: MIT
# 110-replay-swapped-files.t - a replay fed the program a secret file: the
# agent opened the recording's stream files (the data the program read) and
# the replay image by name, after spool had checked them, so a stream file
# replaced by a link to a secret file in between was mapped and its bytes
# were replayed to the program as its input (and printed by it). The agent
# now opens them without following a link or blocking, and maps a file
# only when it is the one spool checked (same device and inode).
#
# The swap is made at the one moment between spool's check and the agent's
# open that a test can hold still: spool replay --gdb, with a gdb shell
# command run before gdb starts the program.
. "$(dirname "$0")/lib.sh"

need_gdb

plan 8

if [ ! -r "$SPOOL_BUILD/spool-gdb.py" ]; then
	export SPOOL_GDB_SCRIPT="$REPO/src/replay/spool-gdb.py"
fi

# What a program read, kept in the trace's stream file: dd copies its stdin.
head -c 100000 /dev/urandom >in.bin
RUN_STDIN=in.bin spool_run record -q --mode sync -o cat.trace -- dd bs=65536 status=none
is_rc 0 "record dd reading 100 KB"
ok "  it printed its input" cmp -s run.out in.bin
# A replay writes the image, which the next ones map.
spool_run replay -q cat.trace
ok "a replay gives the recorded input back" cmp -s run.out in.bin

yes SECRET-KEY-MATERIAL | head -c 200000 >secret

# gdb_swap CMD: spool replay --gdb of cat.trace, running the shell command
# CMD in gdb before the program starts.
gdb_swap() {
	spool_run replay --gdb --gdb-args "-batch -ex 'shell $1' -ex run" cat.trace
}

gdb_swap "mv cat.trace/stream_0 stream_0.orig && ln -s $PWD/secret cat.trace/stream_0"
if [ -L cat.trace/stream_0 ]; then
	pass "the stream file was swapped for a link to a secret file after spool checked it"
else
	fail "the stream file was swapped for a link to a secret file after spool checked it"
	show_run
fi
unlike "$OUT" SECRET "  the replayed program is not fed the secret file"
like "$ERR" 'stream file .*no longer the file spool checked' "  the agent says why it stopped"
rm -f cat.trace/stream_0
mv stream_0.orig cat.trace/stream_0

# The image: the same file by content, but not the one spool checked.
gdb_swap "cp cat.trace/.spool/replay.img img.copy && ln -sf $PWD/img.copy cat.trace/.spool/replay.img"
like "$ERR" 'replay image, or it is no longer the file spool checked' \
	"a replay image swapped for a link after spool checked it is not mapped"
rm -f cat.trace/.spool/replay.img

spool_run replay -q cat.trace
ok "the trace put back replays as recorded" cmp -s run.out in.bin

done_testing
