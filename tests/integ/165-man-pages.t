#!/bin/bash
# SPDX-License-Identifier: MIT
# 165-man-pages.t - the man pages as a user reads them: pkg/gen-man.py makes
# spool(1) and one spool-CMD(1) per command `spool --help` lists, each
# renders with `man -l`, and every option a command's --help prints is in
# its rendered page (the pages are made from --help, so they cannot drift;
# the build's own pages, when there, are the same as freshly made ones);
# every page says its exit status and carries the source's date.
. "$(dirname "$0")/lib.sh"

if command -v man >/dev/null; then
	render() { LC_ALL=C MANWIDTH=120 man -l "$1" 2>&1; }
elif command -v groff >/dev/null; then
	render() { LC_ALL=C groff -man -Tascii "$1" 2>&1 | col -b; }
else
	echo "1..0 # SKIP neither man nor groff is installed (scripts/deps.sh)"
	exit 0
fi

cmds=$("$SPOOL" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | grep -vx help)
ncmds=$(wc -w <<<"$cmds")
plan $((6 + 5 * ncmds))

# Option names printed by `spool ARGS --help` on its option lines (indented
# at most 8 columns, starting with '-').
help_opts() {
	"$SPOOL" "$@" --help | sed -n 's/^ \{1,8\}\(-.*\)/\1/p' | sed 's/  .*//' |
		grep -oE -- '(^|[ ,|[])--?[A-Za-z][-A-Za-z0-9]*' | sed 's/^[ ,|[]//' | sort -u
}

ok "gen-man.py makes the pages from spool's --help" python3 "$REPO/pkg/gen-man.py" "$SPOOL" man 0.0-test
render man/spool.1 >spool.txt
like "$(head -1 man/spool.1)" '^\.TH "SPOOL" 1 "[0-9]{4}-[0-9]{2}-[0-9]{2}"' "spool.1's header carries a date"
ok "man -l spool.1 renders a NAME section" grep -q '^NAME' spool.txt
missing=
for c in $cmds; do
	grep -q "spool-$c(1)" spool.txt || missing+=" spool-$c(1)"
done
is "$missing" "" "spool(1) names every command's page in SEE ALSO"
missing=
for o in $(help_opts); do
	grep -qw -- "$o" spool.txt || missing+=" $o"
done
is "$missing" "" "spool(1) has every option of spool --help"

for c in $cmds; do
	ok "spool-$c.1 was made" test -s "man/spool-$c.1"
	render "man/spool-$c.1" >"$c.txt"
	ok "  man -l renders it (NAME, SYNOPSIS, DESCRIPTION)" \
		grep -q '^DESCRIPTION' "$c.txt"
	like "$(sed -n '/^SYNOPSIS/,/^[A-Z]/p' "$c.txt")" "spool $c" "  its SYNOPSIS is spool $c's usage"
	like "$(sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$c.txt")" "[0-9]" "  it has an EXIT STATUS section with the statuses"
	missing=
	n=0
	for o in $(help_opts "$c"); do
		n=$((n + 1))
		grep -qw -- "$o" "$c.txt" || missing+=" $o"
	done
	if [ "$n" = 0 ]; then
		fail "  spool $c --help prints options"
	else
		is "$missing" "" "  every one of the $n options of spool $c --help is in the page"
	fi
done

# The build's pages (make all) are the ones --help makes now.
if [ -d "$SPOOL_BUILD/man" ] && [ "$SPOOL_ASAN" != 1 ]; then
	diffs=
	for p in man/*.1; do
		b="$SPOOL_BUILD/man/$(basename "$p")"
		# (the version on the .TH line differs: this run said 0.0-test)
		cmp -s <(grep -v '^\.TH' "$p") <(grep -v '^\.TH' "$b" 2>/dev/null) || diffs+=" $(basename "$p")"
	done
	is "$diffs" "" "the build's man pages are what spool --help makes now"
else
	skip 1 "no man pages in $SPOOL_BUILD (make man), or the ASan pass"
fi
done_testing
