#!/bin/bash
# SPDX-License-Identifier: MIT
# 92-corpus-x264.t - the record/replay corpus: Debian's x264 encoding 30
# frames of a 160x120 raw video made here, with --threads 2 (frame
# threads; its statistics, with the encoding speed, on stderr), the
# stream written in its directory; recorded in serial and in sync mode,
# 3 replays each. x264's thread pool reads its exit flag without its lock
# (a data race: threadpool_thread_internal's `while (!pool->exit)`), which
# sync mode does not order: a sync replay may stop at a reported
# divergence (a worker past the end of its log, the stuck report), never
# differ silently.
. "$(dirname "$0")/lib.sh"
need_progs x264
plan 4

mkdir app
"$REAL_PY" -c '
import math
w, h = 160, 120
with open("app/in.yuv", "wb") as f:
    for n in range(30):
        y = bytes((int(128 + 100 * math.sin((x + 3 * n) / 9.0) * math.cos(r / 7.0)) & 255)
                  for r in range(h) for x in range(w))
        f.write(y + bytes([128]) * (w * h // 2))'
rr_corpus x264 serial --dir app -- x264 --threads 2 --input-res 160x120 --fps 25 \
	--preset fast -o out.264 in.yuv
rr_corpus x264 sync --dir app --may-diverge "a data race on the thread pool's exit flag" -- \
	x264 --threads 2 --input-res 160x120 --fps 25 --preset fast -o out.264 in.yuv
done_testing
