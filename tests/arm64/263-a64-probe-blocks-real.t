#!/bin/bash
# SPDX-License-Identifier: MIT
# 263-a64-probe-blocks-real.t - block, branch and argument probes on aarch64
# on real Debian arm64 programs from the root (scripts/arm64-root.sh), the
# way a user runs them, spool's aarch64 build under qemu-user, the host's
# spool reading the traces:
#   - xz with every block and branch of libc and liblzma probed (some 34,000
#     probes): its output byte for byte the unprobed run's, every probe
#     placed, no event lost;
#   - sqlite3 with every block and branch of libsqlite3 and sqlite3_step's
#     argument and return value by TYPES (AAPCS64): the output unchanged;
#     sqlite3_step's first block counted once per call, one return value per
#     call, each SQLITE_ROW (100) or SQLITE_DONE (101).
. "$(dirname "$0")/lib.sh"

plan 7

# a64_prog NAME: the root's NAME (bin/ or usr/bin/), or nothing
a64_prog() {
	local d
	for d in usr/bin bin; do
		if [ -x "$QEMU_LD_PREFIX/$d/$1" ]; then
			echo "$QEMU_LD_PREFIX/$d/$1"
			return
		fi
	done
}

XZ="$(a64_prog xz)"
if [ -n "$XZ" ]; then
	seq 1 20000 >in.txt
	"$XZ" -c in.txt >native.xz
	spool_run probe -q -e 'block:libc.so.6:*' -e 'branch:libc.so.6:*' \
		-e 'block:liblzma.so.5:*' -e 'branch:liblzma.so.5:*' -o xz.trace -- "$XZ" -c in.txt
	cmp -s run.out native.xz
	is "$RC:$?" "0:0" "xz, every block and branch of libc and liblzma: status and output unchanged"
	like "$ERR" "([0-9]{5,}) of \\1 probes placed, 0 events lost" "  tens of thousands of probes, all placed, none lost"
	host_run report --coverage --json --sysroot "$QEMU_LD_PREFIX" xz.trace
	like "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for b in d["blocks"] if b["count"]))' run.out 2>&1)" \
		'^[1-9][0-9]{2,}$' "  hundreds of blocks hit, read by the host's spool"
else
	skip 3 "no xz in the arm64 root $QEMU_LD_PREFIX"
fi

SQ="$(a64_prog sqlite3)"
if [ -n "$SQ" ]; then
	echo 'create table t(a,b); insert into t values(1,2),(3,4); select sum(a*b) from t;' >q.sql
	native="$("$SQ" <q.sql)"
	RUN_STDIN=q.sql
	spool_run probe -q -e 'block:libsqlite3.so.0:*' -e 'branch:libsqlite3.so.0:*' \
		-e 'args:libsqlite3.so.0:sqlite3_step:ptr->int' -o sq.trace -- "$SQ"
	RUN_STDIN=/dev/null
	is "$RC:$OUT" "0:$native" "sqlite3, every block and branch of libsqlite3: status and output unchanged"
	like "$ERR" "([0-9]{5,}) of \\1 probes placed, 0 events lost" "  all placed, none lost"
	host_run report --coverage --json --sysroot "$QEMU_LD_PREFIX" sq.trace
	first="$(python3 -c 'import json,sys; print([f["count"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "sqlite3_step"])' run.out)"
	host_run report --vars --json --sysroot "$QEMU_LD_PREFIX" sq.trace
	got="$(python3 -c '
import json, sys
vs = [v for v in json.load(open(sys.argv[1]))["vars"] if v["function"] == "sqlite3_step"]
args = sum(v["count"] for v in vs if v["name"] == "arg1")
rets = [p["value"] for v in vs if v["name"] == "return" for p in v["values"]]
print([args], len(rets) == args, sorted(set(rets)) <= ["100", "101"])' run.out)"
	like "$first" '^\[[1-9][0-9]*\]$' "  sqlite3_step's first block counted ($first)"
	is "$got" "$first True True" \
		"  one argument and one return value (SQLITE_ROW or SQLITE_DONE) per counted call"
else
	skip 4 "no sqlite3 in the arm64 root $QEMU_LD_PREFIX"
fi

done_testing
