#!/bin/bash
# SPDX-License-Identifier: MIT
# 87-cc-table.t - the translation table stores a shared prefix once
# (doc/cc.md): tests/cc/similar.c has eight handlers whose merged events all
# begin with the same four trace calls; with sharing each later entry refers
# to the first (x<j>,<n>) and the table is smaller than without
# (spool-ccopt --no-share); the spool cc build decodes to the plain build's
# events at -O0, -O2 and -Os. A corrupt table is still refused: a bad
# reference whose hash was made to match, and a changed byte in the binary.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

cc_require_tools

plan 31

for O in O0 O2 Os; do
	"$CLANG" -"$O" -DSPOOL_CC=1 -I"$SRC/include" -emit-llvm -c "$SRC/tests/cc/similar.c" \
		-o "s-$O.bc"
	"$CCOPT" --table "share-$O.tab" "s-$O.bc" out.bc
	is "$?" 0 "-$O: spool-ccopt writes the table (shared)"
	"$CCOPT" --no-share --table "full-$O.tab" "s-$O.bc" out.bc
	is "$?" 0 "-$O: and without sharing"
	refs=$(grep -c '^m .* x0,4' "share-$O.tab")
	is "$refs" 7 "-$O: seven handlers refer to the first one's four header events"
	a=$(wc -c <"share-$O.tab")
	b=$(wc -c <"full-$O.tab")
	diag "-$O: table $b bytes without sharing, $a with"
	num_cmp "$a" -lt "$b" "-$O: the shared table is smaller ($a < $b bytes)"

	"$CLANG" -"$O" -I"$SRC/include" "$SRC/tests/cc/similar.c" -o "plain-$O"
	spool_run cc -"$O" "$SRC/tests/cc/similar.c" -o "cc-$O"
	is_rc 0 "-$O: similar builds with spool cc"
	n=$(readelf -p .spool_cc_table "cc-$O" 2>/dev/null | grep -c ' x0,4')
	is "$n" 7 "-$O: its table section holds the references"
	for b in plain cc; do
		rm -rf "t-$b-$O"
		spool_run locks -q -o "t-$b-$O" -- "./$b-$O" 200
		spool_run decode "t-$b-$O"
		is_rc 0 "-$O: the $b build's trace decodes"
		cp run.out "dec-$b-$O"
	done
	cc_same_events "dec-plain-$O" "dec-cc-$O" "-$O: decoded trace = plain trace, event for event"
done

# A reference to a later entry, with the hash made to match: refused as corrupt.
python3 - share-O2.tab bad.tab <<'EOF2'
import sys
lines = open(sys.argv[1]).read().split("\n")
head, body = lines[0], "\n".join(lines[1:])
body = body.replace("x0,4", "x5,4", 1)
h = 0xcbf29ce484222325
for c in body.encode():
    h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
f = head.split()
f[2] = "%016x" % h
open(sys.argv[2], "w").write(" ".join(f) + "\n" + body)
EOF2
spool_run decode --table bad.tab t-cc-O2
is "$RC" 1 "a table referring to a later entry is refused"
like "$ERR" "corrupt near ' x5,4'" "  as corrupt, naming the bad reference"

# A changed byte in the binary's table (a reference): the hash says so.
cp cc-O2 cc-bad
off=$(readelf -W -S cc-bad | awk '$2 == ".spool_cc_table" { print $5 }')
python3 - cc-bad "$((16#${off:-0}))" <<'EOF2'
import sys
p, off = sys.argv[1], int(sys.argv[2])
d = bytearray(open(p, "rb").read())
i = d.index(b" x0,4", off) + 2
d[i] = ord("1")
open(p, "wb").write(d)
EOF2
spool_run decode --binary cc-bad t-cc-O2
is "$RC" 1 "a binary whose table reference was changed is refused"
like "$ERR" "corrupt" "  as corrupt"

done_testing
