#!/bin/bash
# SPDX-License-Identifier: MIT
# 62-x264-maps.t - Debian's x264 loads 137 shared libraries (libav*,
# codecs, gcrypt ...): its /proc/PID/maps is larger than 64 KiB (issue 12:
# spool kept the first 64 KiB before the shmtrust merge, so the libraries
# at the top of the address space, libx264 and libc among them, were
# unknown, its locks showed as raw addresses, and nothing warned).
# Encoding 50 frames with 2 threads under `spool locks`: the trace keeps
# every mapping (every library ldd lists), every lock's init site is
# named, and spool says nothing is missing.
. "$(dirname "$0")/lib.sh"
need_progs x264
plan 8

x264=$(command -v x264)
args=(--threads 2 --preset ultrafast --input-res 64x48 --fps 25 --frames 50)
head -c $((64 * 48 * 3 / 2 * 50)) /dev/urandom >in.yuv
x264 "${args[@]}" -o native.264 in.yuv 2>/dev/null
wall x264 "${args[@]}" -o native.264 in.yuv 2>/dev/null
native_s=$WALL
wall spool_run locks -o x.trace -- x264 "${args[@]}" -o spool.264 in.yuv
diag "x264, 50 frames: native ${native_s} s, spool locks ${WALL} s"
is_rc 0 "x264 under spool locks exits 0"
ok "it encodes what it encodes alone, byte for byte" cmp -s spool.264 native.264
unlike "$ERR" '^spool: (warning|error)' "spool warns of nothing"

maps=$(ls x.trace/.spool/proc/*.maps 2>/dev/null | head -n 1)
num_cmp "$(stat -c %s "$maps" 2>/dev/null)" -gt 65536 "the trace's maps are larger than 64 KiB"
missing=$(ldd "$x264" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
	grep -q "$(readlink -f "$lib")" "$maps" || echo "$lib"
done)
is "$missing" "" "the trace's maps have every library ldd lists"

report_json x.trace
unlike "$ERR" '^spool: (warning|error)' "spool report --locks warns of nothing"
num_cmp "$(json report.json "len(d['$J_LOCKS'])")" -gt 10 "the report has x264's locks"
is "$(json report.json "[l['name'] for l in d['$J_LOCKS'] if l['init_ip'] and not l['init_site']]")" "" \
	"every lock's init site is named"
done_testing
