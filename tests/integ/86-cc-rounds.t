#!/bin/bash
# SPDX-License-Identifier: MIT
# 86-cc-rounds.t - spool cc's moving rounds and hoisting (doc/cc.md):
# tests/cc/join.c has trace calls where the branches of an if meet; they move
# up into both arms and merge there, values carried through phis (-O2) and
# stack slots (-O0). At -O0 the nested join needs a second round; with
# --round-gain 100 (a round must save everything to go on) one round is
# done and fewer calls merge. Every build decodes to the plain build's
# events, at -O0, -O2 and -Os, with strictly increasing times.
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cc/cc-lib.sh"

cc_require_tools

plan 41

N=300
# explain_field TEXT REGEX: the number before REGEX in --explain's line.
explain_num() {
	sed -nE "s/.* ([0-9]+) $2.*/\\1/p" <<<"$1" | head -n 1
}

for O in O0 O2 Os; do
	"$CLANG" -"$O" -I"$SRC/include" "$SRC/tests/cc/join.c" -o "plain-$O"
	spool_run cc -"$O" --explain -Wall -Wextra -Werror "$SRC/tests/cc/join.c" -o "cc-$O"
	is_rc 0 "-$O: join builds with spool cc"
	hoisted=$(explain_num "$ERR" "into the blocks before")
	rounds=$(explain_num "$ERR" "moving rounds")
	num_cmp "${hoisted:-0}" -ge 2 "-$O: calls at joins moved into the blocks before ($hoisted)"
	spool_run cc -"$O" --explain --round-gain 100 "$SRC/tests/cc/join.c" -o "one-$O"
	is_rc 0 "-$O: --round-gain 100 builds"
	one=$(explain_num "$ERR" "moving rounds")
	is "$one" 1 "  one round only"
	if [ "$O" = O0 ]; then
		num_cmp "${rounds:-0}" -ge 2 "-O0: the nested join took another round ($rounds)"
	else
		num_cmp "${rounds:-0}" -ge 1 "-$O: rounds done ($rounds)"
	fi
	for b in plain cc one; do
		rm -rf "t-$b-$O"
		spool_run locks -q -o "t-$b-$O" -- "./$b-$O" "$N"
		spool_run decode --stats "t-$b-$O"
		is_rc 0 "-$O: the $b build's trace decodes"
		cp run.out "dec-$b-$O"
		cp run.err "stats-$b-$O"
	done
	cc_same_events "dec-plain-$O" "dec-cc-$O" "-$O: decoded trace = plain trace, event for event"
	cc_same_events "dec-plain-$O" "dec-one-$O" "-$O: one round: decoded trace = plain trace"
	ok "-$O: decoded times strictly increase" cc_increasing "dec-cc-$O"
	# Cycle-corrected times stay in their record's span: never after the
	# record's own time (decode --no-cycles gives every event its record's
	# time), never before the record written just before it.
	spool_run decode --no-cycles "t-cc-$O"
	cp run.out "rec-cc-$O"
	span=$(paste -d '|' "dec-cc-$O" "rec-cc-$O" | awk -F '|' '
		{ split($1, x, " "); split($2, y, " "); split(x[1], a, "."); split(y[1], b, ".");
		  t = a[1] + 0; r = b[1] + 0
		  if (r != cur) { prev = cur; cur = r }
		  if (t > r) { bad = "after its record at " NR; exit }
		  if (NR > 1 && t < prev) { bad = "before the record before at " NR; exit }
		  if (t < r) moved++ }
		END { if (bad != "") print bad; else print "in span, " moved + 0 " moved back" }')
	like "$span" "^in span," "-$O: corrected times lie within their record's span ($span)"
	rp=$(cc_stat "stats-plain-$O" records)
	rc=$(cc_stat "stats-cc-$O" records)
	r1=$(cc_stat "stats-one-$O" records)
	diag "-$O: records plain $rp, one round $r1, rounds $rc"
	if [ "$O" = O0 ]; then
		ok "-O0: records: rounds ($rc) < one round ($r1) < plain ($rp)" \
			test "$rc" -lt "$r1" -a "$r1" -lt "$rp"
	else
		ok "-$O: records: rounds ($rc) <= one round ($r1) < plain ($rp)" \
			test "$rc" -le "$r1" -a "$r1" -lt "$rp"
	fi
done

spool_run cc --round-gain lots -O2 -c "$SRC/tests/cc/join.c" -o bad.o
is "$RC" 2 "a --round-gain that is not a percentage is refused"
like "$ERR" "round-gain wants a percentage" "  with a message"

done_testing
