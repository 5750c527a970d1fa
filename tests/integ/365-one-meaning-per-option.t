#!/bin/bash
# SPDX-License-Identifier: MIT
# 365-one-meaning-per-option.t - one set of conventions (issue 17), as a
# user reads every command's --help: -o is "-o, --output DIR", a trace
# directory, in every command that has it; a file a command writes is
# "-w, --write FILE" in every command that writes one; the old spellings
# (export -o FILE, report --coverage -o FILE, path -o FILE) still work
# with a warning that names -w, for this release. And spool report of a
# trace with both lock and probe events shows both without being asked.
. "$(dirname "$0")/lib.sh"

plan 10

cmds=$("$SPOOL" --help | awk '/^commands:/ {f = 1; next} f && /^  [a-z]/ {print $1} f && /^$/ {exit}')
num_cmp "$(echo "$cmds" | wc -w)" -ge 10 "spool --help lists the commands ($(echo $cmds))"
o_bad="" w_bad="" o_n=0 w_n=0
for c in $cmds; do
	[ "$c" = help ] && continue
	h=$("$SPOOL" "$c" --help 2>&1)
	o=$(grep -E '^ {1,8}-o[ ,]' <<<"$h")
	w=$(grep -E '^ {1,8}-w[ ,]' <<<"$h")
	if [ -n "$o" ]; then
		o_n=$((o_n + 1))
		grep -Eq '^ +-o, --output DIR ' <<<"$o" || o_bad+=" $c"
	fi
	if [ -n "$w" ]; then
		w_n=$((w_n + 1))
		grep -Eq '^ +-w, --write FILE ' <<<"$w" || w_bad+=" $c"
	fi
done
is "$o_bad" "" "-o is '-o, --output DIR' in each of the $o_n commands that take it"
is "$w_bad" "" "a file written is '-w, --write FILE' in each of the $w_n commands that write one"
# (a directory, not a file: the help of each says so)
like "$("$SPOOL" locks --help | grep -A1 -- '-o, --output DIR')" "trace directory" \
	"  spool locks: -o names the trace directory"

spool_run probe -q -o both.trace -e 'func:worker' -- "$PROGS/lockcount" 2 100
is_rc 0 "spool probe of a program that locks: its lock calls are recorded too"
spool_run report both.trace
like "$OUT$ERR" "(^|\n)function +calls " "spool report without --locks or --functions: the functions" || show_run
like "$OUT$ERR" "(^|\n)locks \\([0-9]+ of [0-9]+" "  and the locks, from the same trace"

# the old spellings of -w: kept, with a warning naming -w
spool_run export --chrome -o old.json both.trace
ok "spool export -o FILE (the old spelling) still writes FILE" test -s old.json
like "$ERR" "use -w" "  with a warning naming -w" || show_run
spool_run path -o path.txt -t both.trace
like "$ERR" "use -w path.txt" "spool path -o FILE -t TRACE: the path's file, with a warning naming -w" ||
	show_run

done_testing
