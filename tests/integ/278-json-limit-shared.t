#!/bin/bash
# SPDX-License-Identifier: MIT
# 278-json-limit-shared.t - --json and --limit mean the same in every
# command that prints a report (spool locks, probe, report; path has
# --json): one row each in src/cmd/run_opts.c, so each command's --help
# explains them in the same words, a wrong --limit is refused with the same
# message and status, --limit N cuts the text to N rows with a line saying
# how many more, and --json is complete whatever --limit says. Before,
# each command declared them itself, with other words ("print at most N
# locks", "rows of the report", "JSON instead of text"). And -o is a trace
# directory in every command: the commands that write a file (export,
# report --coverage) take -w FILE as spool path does; their old -o FILE
# still works for this release, with a warning saying -w.
. "$(dirname "$0")/lib.sh"

plan 21

LOCKS="$PROGS/rr_manylocks"
CALLS="$PROGS/probe_calls"

# the help lines of option $2 in `spool $1 --help` (the option line and
# the lines under it, up to the next option)
opt_help() {
	"$SPOOL" "$1" --help | awk -v o="$2" '
		index($0, o " ") && $0 ~ /^ +-/ { on = 1; print; next }
		on && $0 ~ /^ {20,}[^ ]/ { print; next }
		{ on = 0 }'
}

j=$(opt_help locks --json) l=$(opt_help locks --limit)
like "$j" "print JSON in place of the text" "spool locks --help explains --json"
like "$l" "rows per table of the text report" "spool locks --help explains --limit"
for c in probe report; do
	is "$(opt_help "$c" --json)|$(opt_help "$c" --limit)" "$j|$l" \
		"spool $c --help explains --json and --limit in the same words"
done
is "$(opt_help path --json)" "$j" "spool path --help explains --json in the same words"

msgs=
for c in "locks --limit x -- true" "probe -e func:main --limit x -- true" "report --limit x ."; do
	spool_run $c
	msgs+="$RC:$(grep -c "error: --limit 'x': want a number" run.err) "
done
is "$msgs" "2:1 2:1 2:1 " "--limit x: the same usage error (status 2) in locks, probe and report"

# spool locks: 40 mutexes, the text cut to 3 rows, the JSON complete
spool_run locks --limit 3 -o l.trace -- "$LOCKS" 40 2
is_rc 0 "spool locks --limit 3 runs the program"
like "$ERR" "locks \(3 of 40," "  the text lists 3 of the 40 locks"
like "$ERR" "\.\.\. 37 more \(--limit 0 shows all\)" "  and says how many more"
spool_run locks --json --limit 3 -o lj.trace -- "$LOCKS" 40 2
sed -n '/^{/,/^}/p' run.err >locks.json
is "$(json locks.json 'len([l for l in d["locks"] if l["acquisitions"]])')" 40 \
	"spool locks --json --limit 3: all 40 locks in the JSON"

# spool report reads that trace the same way
spool_run report --locks --limit 3 l.trace
like "$OUT" "locks \(3 of 40," "spool report --locks --limit 3: 3 of the 40 locks"
report_json --limit 3 l.trace
is "$(json report.json 'len([l for l in d["locks"] if l["acquisitions"]])')" 40 \
	"spool report --locks --json --limit 3: all 40"

# spool probe: the function table cut to 2 rows, the JSON complete
spool_run probe -e 'func:probe_*' --limit 2 -o p.trace -- "$CALLS"
n=$(sed -n '/^function  *calls/,/^$/p' run.err | grep -cE '^probe_')
is "$n" 2 "spool probe --limit 2: the function table has 2 rows"
spool_run probe -e 'func:probe_*' --json --limit 2 -o pj.trace -- "$CALLS"
sed -n '/^{/,$p' run.err | sed '/^spool: /d' >funcs.json
is "$(json funcs.json 'len([f for f in d["functions"] if f["calls"]])')" 4 \
	"spool probe --json --limit 2: the 4 functions called in the JSON"
spool_run report --functions --limit 2 p.trace
is "$(echo "$OUT" | sed -n '/^function  *calls/,/^$/p' | grep -cE '^probe_')" 2 \
	"spool report --functions --limit 2: 2 rows too"

# -o: a trace directory wherever it is an option; a file to write is -w
o_dir= w_file=
for c in locks probe path record replay receive; do
	"$SPOOL" "$c" --help | grep -qE -- '^  -o, --output DIR ' && o_dir+="$c "
done
for c in path export report; do
	"$SPOOL" "$c" --help | grep -qE -- '^  -w, --write FILE ' && w_file+="$c "
done
is "$o_dir|$w_file" "locks probe path record replay receive |path export report " \
	"-o, --output DIR in the commands that write a trace; -w, --write FILE in those that write a file"
spool_run export --chrome -w c.json l.trace
is "$RC:$(test -s c.json && echo file):$(grep -c warning run.err)" "0:file:0" \
	"spool export --chrome -w FILE writes FILE"
spool_run export --chrome -o o.json l.trace
is "$RC:$(test -s o.json && echo file)" "0:file" "spool export -o FILE still writes FILE (the old spelling)"
like "$ERR" "warning: export: -o o.json taken as the file to write \(the old spelling\): use -w o.json" \
	"  with a warning saying -w"
spool_run probe -q -e 'block:probe_fib' -o cov.trace -- "$CALLS"
spool_run report --coverage -w app.info cov.trace
is "$RC:$(grep -c '^SF:' app.info 2>/dev/null)" "0:1" "spool report --coverage -w FILE writes the lcov file"
spool_run report --coverage -o old.info cov.trace
is "$RC:$(grep -c '^SF:' old.info 2>/dev/null):$(grep -c 'use -w old.info' run.err)" "0:1:1" \
	"  -o FILE too, with the warning"
done_testing
