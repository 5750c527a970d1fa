#!/bin/bash
# SPDX-License-Identifier: MIT
# 339-doc-options.t - the options the documentation shows are the ones
# spool takes (issue 17): scripts/check-doc-opts.py reads every
# `spool CMD ... --opt` of README.md and doc/*.md and every option of
# `spool CMD --help`; an option a page shows that spool refuses ("unknown
# option") is a bug, and so is an option of --help no page of the command
# mentions. The man pages are made from --help (165), so they agree too.
# The check is shown failing on a copy of the docs with one of each.
. "$(dirname "$0")/lib.sh"
plan 6

check="$REPO/scripts/check-doc-opts.py"
out="$(python3 "$check" "$SPOOL" "$REPO" 2>&1)"
is "$?" 0 "every option the docs show is taken, every option of --help documented"
is "$out" "" "  nothing to say" || diag "$out"

# A copy of the docs with an option spool does not have, and without
# the page that documents path's run options.
mkdir -p docs/doc
cp "$REPO/README.md" docs/ && cp "$REPO"/doc/*.md docs/doc/
printf '\nTry `spool locks --color=auto -- ls --group-directories-first`.\n' >>docs/doc/locks.md
sed -i 's/`--max-procs N`, `--until-first-exit`/`--until-first-exit`/' docs/doc/path.md
out="$(python3 "$check" "$SPOOL" docs 2>&1)"
is "$?" 1 "a page showing an option spool refuses: the check fails"
like "$out" "spool locks --color: documented \\(doc/locks.md:[0-9]+\\) but refused: unknown option" \
	"  it names the option and the page's line"
like "$out" "spool path --max-procs: in --help, not in its documentation \\(doc/path.md" \
	"  and an option of --help no page of the command mentions"
unlike "$out" "group-directories-first" \
	"  words after -- are the program's, not spool's"

done_testing
