#!/bin/bash
# SPDX-License-Identifier: MIT
# 85-cc-profile.t - spool cc --profile (doc/cc.md): tests/cc/profile.c has
# two merge candidates, the inner loop's trace calls (one loop deeper: the
# static estimate's choice under --max-codes 1) and the outer loop's. A run
# with no inner iterations is the profile: it shows the outer calls hot and
# the inner ones never run, so spool cc --max-codes 1 --profile merges the
# outer calls instead, whether the profile is a plain build's trace or a
# spool cc build's (decoded with its table). Each build's decoded trace
# equals the plain build's, at -O0, -O2 and -Os. decode --counts prints the
# counts; a profile that cannot be read stops the build with a message.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

cc_require_tools

plan 44

# merged_ids BIN: the original event ids of the binary's merged events, sorted.
merged_ids() {
	objcopy --dump-section .spool_cc_table="$1.tab" "$1" "$1.tmp" 2>/dev/null
	awk '$1 == "e" { print $2 }' "$1.tab" | sort -un | tr '\n' ' '
}

# The profile run: 500 outer rounds, no inner ones.
"$CLANG" -O2 -I"$SRC/include" "$SRC/tests/cc/profile.c" -o prof-plain
rm -rf t-prof
spool_run locks -q -o t-prof -- ./prof-plain 500 0
is_rc 0 "the profile run (plain build) is traced"
spool_run decode --counts t-prof
is_rc 0 "decode --counts reads it"
is "$(tr '\n' ' ' <run.out)" "11 500 12 500 15 2 " \
	"  one 'ID COUNT' line per event id: the outer events ran, the inner ones never"

for O in O0 O2 Os; do
	"$CLANG" -"$O" -I"$SRC/include" "$SRC/tests/cc/profile.c" -o "plain-$O"
	spool_run cc -"$O" --max-codes 1 "$SRC/tests/cc/profile.c" -o "static-$O"
	is_rc 0 "-$O: --max-codes 1 builds (static estimate)"
	spool_run cc -"$O" --max-codes 1 --profile t-prof --explain "$SRC/tests/cc/profile.c" \
		-o "prof-$O"
	is_rc 0 "-$O: --max-codes 1 --profile builds"
	like "$ERR" "chosen by the profile" "  --explain says the profile chose"
	s=$(merged_ids "static-$O")
	p=$(merged_ids "prof-$O")
	is "$s" "13 14 " "-$O: the static estimate merges the inner loop's calls"
	is "$p" "11 12 " "-$O: the profile merges the outer loop's calls instead"

	# The same choice from a trace of the spool cc build (merged events
	# decoded with its binary's table).
	rm -rf "t-sprof-$O"
	spool_run locks -q -o "t-sprof-$O" -- "./static-$O" 500 0
	spool_run cc -"$O" --max-codes 1 --profile "t-sprof-$O" "$SRC/tests/cc/profile.c" \
		-o "prof2-$O"
	is_rc 0 "-$O: a spool cc build's trace is a profile too"
	is "$(merged_ids "prof2-$O")" "$p" "  and gives the same choice"

	# Exact either way, on a run where both paths are taken.
	for b in plain static prof; do
		rm -rf "t-$b-$O"
		spool_run locks -q -o "t-$b-$O" -- "./$b-$O" 40 3
		spool_run decode --stats "t-$b-$O"
		is_rc 0 "-$O: the $b build's trace decodes"
		cp run.out "dec-$b-$O"
		cp run.err "stats-$b-$O"
	done
	cc_same_events "dec-plain-$O" "dec-static-$O" \
		"-$O: static choice: decoded trace = plain trace, event for event"
	cc_same_events "dec-plain-$O" "dec-prof-$O" \
		"-$O: profile choice: decoded trace = plain trace, event for event"
	diag "-$O: records plain $(cc_stat "stats-plain-$O" records)," \
		"  static choice $(cc_stat "stats-static-$O" records)," \
		"  profile choice $(cc_stat "stats-prof-$O" records)"
done

# A profile that cannot be read: the build stops and says why.
spool_run cc -O2 --profile no-such-trace "$SRC/tests/cc/profile.c" -o bad
is "$RC" 1 "spool cc fails on a profile that is not a trace"
like "$ERR" "cannot read the profile no-such-trace" "  and says so"
ok "  no binary is written" test ! -e bad
printf '11 12 13\n' >bad.prof
"${SPOOL_CCOPT:-$SPOOL_BUILD/spool-ccopt}" --profile bad.prof x.bc y.bc 2>ccopt.err
is "$?" 1 "spool-ccopt refuses a malformed profile file"
like "$(cat ccopt.err)" "bad.prof:1: not a profile line" "  naming the file and line"

done_testing
