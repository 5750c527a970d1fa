#!/bin/bash
# SPDX-License-Identifier: MIT
# 311-probes-path-spaces.t - a program whose path holds spaces (issue 17):
# the "probes" side file (version 3) and the "coverage" side file (version
# 2) write its path as one word ("\040" for a space), so their columns stay
# where they are; spool path --check, report --functions and report
# --coverage read the real path back. Before, the path's second word was
# read as the offset: spool path found no function probe in such a trace.
# A version 2 probes file (the path written as it is) is still read.
. "$(dirname "$0")/lib.sh"

PLAIN="$PROGS/path_prodcons"
plan 12
if [ ! -x "$PLAIN" ]; then
	skip 12 "$PLAIN is not built"
	done_testing
	exit 0
fi
mkdir -p "my dir"
cp "$PLAIN" "my dir/prod cons"
EXE="$(pwd)/my dir/prod cons"
ESC="${EXE// /\\040}"

spool_run path -w p.txt -o s.trace -- "./my dir/prod cons"
is_rc 0 "spool path of a program in 'my dir/prod cons'"
P=s.trace/.spool/probes
is "$(head -n 1 "$P")" "# spool probes 3" "the probes side file is version 3"
is "$(sed -n 's/^# exe //p' "$P")" "$ESC" "  its '# exe' line: the path as one word (\\040 for a space)"
nfn=$(grep -cE '^[0-9]+ (entry|exit) ' "$P")
num_cmp "$nfn" -ge 2 "  it has function probes"
is "$(M="$ESC" awk '$4 == ENVIRON["M"] && $5 ~ /^0x/' "$P" | grep -cE '^[0-9]+ (entry|exit) ')" "$nfn" \
	"  each one: the module in the 4th column, the offset in the 5th"

spool_run path --check s.trace
like "$OUT" "^7 of 8 functions entered \\($EXE," "path --check reads the real path back: 7 of 8 entered"
spool_run report --functions --json s.trace
is "$(json run.out 'sorted({f["module"] for f in d["functions"]})[0]')" "$EXE" \
	"report --functions --json: the module is the path with its spaces"

spool_run probe -q -o c.trace -e 'block:consumer' -- "./my dir/prod cons"
is_rc 0 "spool probe -e block:consumer of the same program"
C=c.trace/.spool/coverage
is "$(head -n 1 "$C")" "# spool coverage 2" "  the coverage side file is version 2"
is "$(M="$ESC" awk '$1 == "block" && $7 == ENVIRON["M"] && $8 == "consumer"' "$C" | wc -l)" \
	"$(grep -c '^block ' "$C")" "  each block line: module and function in their columns"
spool_run report --coverage c.trace
like "$OUT" "(^|\n)consumer +1 +[0-9]+/[0-9]+ .*prod cons" \
	"  report --coverage: consumer, called once, in 'prod cons'"

# the side file as the previous spool wrote it (version 2: the path as it
# is) of a path without spaces reads as before
spool_run path -w q.txt -o v2.trace -- "$PLAIN"
sed -i '1s/^# spool probes 3$/# spool probes 2/' v2.trace/.spool/probes
spool_run path --check v2.trace
like "$OUT" "^7 of 8 functions entered" "a version 2 side file: path --check reads it, 7 of 8 entered"
done_testing
