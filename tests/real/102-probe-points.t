#!/bin/bash
# SPDX-License-Identifier: MIT
# 102-probe-points.t - jump: and block-exit: points in Debian's libz (no
# DWARF, .dynsym only), driven by Debian's python3.
#
# python3 calls zlib.crc32 and zlib.adler32 777 times each, and compresses
# a buffer. libz's crc32 and adler32 are wrappers that leave by one tail
# jump (`mov edx,edx; jmp crc32_z`): the passes spool counts at the
# jump: points of each must equal the calls a func: probe counts in a run
# of its own (777 for crc32; compress calls adler32 itself too). Every block of the deflate functions counted with
# block: and block-exit: together: the program prints what it prints
# alone, every probe is placed, and no block is left (its last
# instruction passed) more often than it was entered.
. "$(dirname "$0")/lib.sh"
need_progs "$REAL_PY"
plan 8

cat >z.py <<'PY'
import zlib
n = 0
for i in range(777):
    n ^= zlib.crc32(b"spool" * (i % 13)) ^ zlib.adler32(b"x" * i)
print(n, len(zlib.compress(bytes(range(256)) * 4000)))
PY
native="$("$REAL_PY" z.py)"

spool_run probe -q -e 'jump:libz.so*:crc32' -e 'jump:libz.so*:adler32' -- "$REAL_PY" z.py
is "$RC:$OUT" "0:$native" "python3 under jump: points prints what it prints alone"
spool_run report --coverage --json spool.trace
jumps="$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["points"]
print(" ".join("%s=%d" % (f, sum(x["count"] for x in p if x["function"] == f))
               for f in ("adler32", "crc32")))
' run.out)"
like "$jumps" "^adler32=[0-9]+ crc32=777\$" \
	"crc32's tail jump passed once per call (adler32: deflate calls it too)"

spool_run probe -q -e 'func:libz.so*:crc32' -e 'func:libz.so*:adler32' -- "$REAL_PY" z.py
spool_run report --functions --json spool.trace
is "$(python3 -c '
import json, sys
f = {x["name"]: x["calls"] for x in json.load(open(sys.argv[1]))["functions"]}
print("adler32=%d crc32=%d" % (f.get("adler32", -1), f.get("crc32", -1)))
' run.out)" "$jumps" "... as many as the calls func: probes count"

spool_run probe -q -e 'block:libz.so*:deflate*' -e 'block-exit:libz.so*:deflate*' \
	-- "$REAL_PY" z.py
is "$RC:$OUT" "0:$native" "every deflate* block and block exit counted: the same output"
like "$ERR" '^spool: ([0-9]+) of \1 probes placed' "every probe was placed"
spool_run report --coverage --json spool.trace
got="$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
blocks = [(b["start"], b["end"], b["count"]) for b in c["blocks"]]
n = bad = hit = 0
for p in c["points"]:
    if p["kind"] != "block-exit":
        continue
    n += 1
    hit += p["count"] > 0
    inb = [b for b in blocks if b[0] <= p["addr"] < b[1]]
    if len(inb) != 1 or p["count"] > inb[0][2]:
        bad += 1
print(n == len(blocks), bad, hit > 0)
' run.out)"
is "$got" "True 0 True" \
	"one exit point per block, inside it, never passed more often than the block was entered"
spool_run report --coverage spool.trace
like "$OUT" "^coverage: [0-9]+ functions; blocks [0-9]+ of [0-9]+ hit" "the text report: blocks"
like "$OUT" "^block-exit +- +deflate" "... and the block exits, named by function"

done_testing
