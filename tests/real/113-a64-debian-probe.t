#!/bin/bash
# SPDX-License-Identifier: MIT
# 113-a64-debian-probe.t - dynamic function probes on aarch64 on real Debian
# arm64 programs (gzip, xz, sqlite3 from the arm64 root, scripts/
# arm64-root.sh), spool's aarch64 build under qemu-user, as a new user runs
# them: every function of libc (and of liblzma, of libsqlite3) probed, the
# program's output byte for byte the unprobed run's, every probe placed, no
# event lost, counts the program's work explains, read by the host's spool.
# Pins two bugs found that way:
#   - glibc's _setjmp ends in "b __sigsetjmp+4" (past the word a landing
#     pad would take): that tail call was not an exit, so _setjmp never
#     returned in the reports and was the caller of everything after it;
#   - the agent's own constructors read errno (a call of __errno_location)
#     before marking themselves busy: with libc probed, those calls showed
#     in the program's report with the agent's functions as callers;
#   - indirect tail calls ("mov x16, xN; br x16") and tail calls into the
#     PLT ("b f@plt") were not exits: a fifth of sqlite3's calls into
#     libsqlite3 had no seen exit;
#   - a loop back to a function's first instruction (glibc's wcschr) ran
#     its entry probe on each pass: each counted as a call (now refused).
# Runs the aarch64 build in ../build-aarch64 next to SPOOL_BUILD unless
# SPOOL_A64 says where (make ARCH=aarch64 all progs); skips without it or
# without the root, and skips a program the root does not have.
[ -n "${SPOOL_BUILD:-}" ] && : "${SPOOL_A64:=$(dirname "$SPOOL_BUILD")/build-aarch64}"
export SPOOL_A64
. "$(dirname "$0")/../arm64/lib.sh"
# (a build-aarch64 left from older sources would test those)
_stale="$(find "$REPO/src" -name '*.[ch]' -newer "$SPOOL_A64/spool" 2>/dev/null | head -n 1)"
[ -z "$_stale" ] || _a64_skip "$SPOOL_A64 is older than $_stale (make ARCH=aarch64 all progs)"

plan 20

# funcs.py JSON FUNC: "calls no_exit" of FUNC in report --functions --json
cat >funcs.py <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if f["name"] == sys.argv[2]:
        print(f["calls"], f["no_exit"])
        break
else:
    print("absent")
PY

# a64_prog NAME: the root's NAME (bin/ or usr/bin/: the root is not
# usr-merged), or nothing
a64_prog() {
	local d
	for d in usr/bin bin; do
		if [ -x "$QEMU_LD_PREFIX/$d/$1" ]; then
			echo "$QEMU_LD_PREFIX/$d/$1"
			return
		fi
	done
}

# at_least_4 "CALLS NO_EXIT": 4 calls or more, every exit seen
at_least_4() {
	[ "${1% 0}" != "$1" ] && [ "${1% 0}" -ge 4 ] 2>/dev/null
}

seq 1 20000 >in.txt

# --- gzip: every libc function ---
GZIP_A64="$(a64_prog gzip)"
if [ -n "$GZIP_A64" ]; then
	"$GZIP_A64" -c in.txt >native.gz
	spool_run probe -e 'func:libc.so.6:*' -o gz.trace -- "$GZIP_A64" -c in.txt
	cmp -s run.out native.gz
	is "$RC:$?" "0:0" "gzip (arm64) with every libc function probed: status and output unchanged"
	like "$ERR" "([0-9]{4,}) of \\1 probes placed, 0 events lost" \
		"  thousands of probes, all placed, no event lost"
	# (Debian 12's arm64 wcschr: "cbnz w2, wcschr" loops to its first word)
	like "$ERR" "wcschr is not probed \\(entry refused\\): .*a loop back to its entry" \
		"  libc's wcschr, whose loop branches to its entry, is refused saying why"
	host_run report --functions --json gz.trace
	cp run.out gz.json
	is "$(python3 funcs.py gz.json _setjmp)" "1 0" \
		"  _setjmp: 1 call, its exit seen (a tail call to __sigsetjmp+4)"
	like "$(python3 funcs.py gz.json read)" '^[1-9][0-9]* 0$' "  read: called, every exit seen"
	like "$(python3 funcs.py gz.json write)" '^[1-9][0-9]* 0$' "  write: called, every exit seen"
	host_run report --functions gz.trace
	unlike "$OUT" "<- (agent_|rr_|sig_resolve)" "  no call of the agent's own is in the report"
else
	skip 7 "no gzip in the arm64 root $QEMU_LD_PREFIX (scripts/arm64-root.sh)"
fi

# --- xz: libc and liblzma ---
XZ_A64="$(a64_prog xz)"
if [ -n "$XZ_A64" ]; then
	"$XZ_A64" -c in.txt >native.xz
	spool_run probe -e 'func:libc.so.6:*' -e 'func:liblzma.so.5:*' -o xz.trace -- \
		"$XZ_A64" -c in.txt
	cmp -s run.out native.xz
	is "$RC:$?" "0:0" "xz (arm64), libc and liblzma probed: status and output unchanged"
	like "$ERR" "([0-9]{4,}) of \\1 probes placed, 0 events lost" \
		"  every probe placed, no event lost"
	host_run report --functions --json xz.trace
	cp run.out xz.json
	like "$(python3 funcs.py xz.json lzma_code)" '^[1-9][0-9]* 0$' \
		"  lzma_code: called, every exit seen"
	is "$(python3 funcs.py xz.json lzma_stream_encoder)" "1 0" \
		"  lzma_stream_encoder: once (one stream), its exit seen"
	host_run report --functions xz.trace
	unlike "$OUT" "<- (agent_|rr_|sig_resolve)" "  no call of the agent's own is in the report"
else
	skip 5 "no xz in the arm64 root $QEMU_LD_PREFIX (scripts/arm64-root.sh)"
fi

# --- sqlite3: the shell's statements through libsqlite3 ---
SQLITE_A64="$(a64_prog sqlite3)"
if [ -n "$SQLITE_A64" ]; then
	printf 'create table t(a,b);\ninsert into t values(1,2),(3,4);\nselect a+b from t;\nselect count(*) from t;\n' >q.sql
	native="$("$SQLITE_A64" :memory: <q.sql 2>&1)"
	RUN_STDIN=q.sql
	spool_run probe -e 'func:libsqlite3.so.0:sqlite3_prepare*' \
		-e 'func:libsqlite3.so.0:sqlite3_step' -o sq.trace -- "$SQLITE_A64" :memory:
	RUN_STDIN=/dev/null
	is "$RC:$OUT" "0:$native" "sqlite3 (arm64), its statements probed: status and output unchanged"
	like "$ERR" "([0-9]+) of \\1 probes placed, 0 events lost" "  every probe placed, no event lost"
	host_run report --functions --json sq.trace
	cp run.out sq.json
	p="$(python3 funcs.py sq.json sqlite3_prepare_v2)"
	s="$(python3 funcs.py sq.json sqlite3_step)"
	# 4 statements: each prepared and stepped at least once by the shell
	ok "  sqlite3_prepare_v2: at least one per statement ($p), every exit seen" \
		at_least_4 "$p"
	ok "  sqlite3_step: at least one per statement ($s), every exit seen" at_least_4 "$s"
	# every function of libsqlite3 and libc: its indirect tail calls
	# ("mov x16, xN; br x16" through sqlite3GlobalConfig's methods) and its
	# tail calls into the PLT ("b sqlite3_mutex_leave@plt") are exits
	printf 'create table t(a integer primary key, b text);\nwith recursive c(x) as (select 1 union all select x+1 from c where x<2000) insert into t select x, printf("row%%d", x) from c;\nselect count(*), sum(a), max(b) from t;\n' >q2.sql
	native="$("$SQLITE_A64" :memory: <q2.sql 2>&1)"
	RUN_STDIN=q2.sql
	spool_run probe -e 'func:libsqlite3.so.0:*' -e 'func:libc.so.6:*' -o sq2.trace -- \
		"$SQLITE_A64" :memory:
	RUN_STDIN=/dev/null
	is "$RC:$OUT" "0:$native" "sqlite3 (arm64), every function of libsqlite3 and libc: output unchanged"
	host_run report --functions --json sq2.trace
	cp run.out sq2.json
	is "$(python3 funcs.py sq2.json sqlite3_mutex_leave | cut -d' ' -f2)" 0 \
		"  sqlite3_mutex_leave (mov x16, x1; br x16): every exit seen"
	is "$(python3 funcs.py sq2.json sqlite3_free | cut -d' ' -f2)" 0 \
		"  sqlite3_free (br x16, and b sqlite3_mutex_leave@plt): every exit seen"
	n="$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["functions"]
print(sum(f["no_exit"] for f in d if f["name"] not in ("__libc_start_main", "exit", "_Exit")))' sq2.json)"
	is "$n" 0 "  no call without a seen exit but those that never return (__libc_start_main, exit, _Exit)"
else
	skip 8 "no sqlite3 in the arm64 root $QEMU_LD_PREFIX (scripts/arm64-root.sh)"
fi

done_testing
