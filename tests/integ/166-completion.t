#!/bin/bash
# SPDX-License-Identifier: MIT
# 166-completion.t - bash completion (pkg/spool.bash) as a user meets it:
# sourced in bash, its function called with COMP_WORDS/COMP_CWORD as bash
# sets them on Tab. It offers the commands spool --help lists, each
# command's options as its --help prints them, the probe spec kinds of
# doc/probe.md for -e, trace directories (a spool trace first, not plain
# files) for a TRACE_DIR argument and -o, and the keys of --sort.
. "$(dirname "$0")/lib.sh"

COMPL="$REPO/pkg/spool.bash"
cmds=$("$SPOOL" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
ncmds=$(wc -w <<<"$cmds")
plan $((11 + ncmds))

# complete WORDS...: what Tab offers for the last word, one per line.
complete_words() {
	bash -c '. "$1" || exit 1; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=(); _spool; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPL" "$SPOOL" "$@"
}

# has LIST WORDS...: the words of WORDS missing from LIST (empty: none).
missing_from() {
	local list="$1" w out=
	shift
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$list" || out+=" $w"
	done
	echo "$out"
}

ok "pkg/spool.bash sources in bash and registers _spool" \
	bash -c '. "$1" && complete -p spool | grep -q _spool' _ "$COMPL"

got=$(complete_words "")
# shellcheck disable=SC2086
is "$(missing_from "$got" $cmds)" "" "spool <Tab> offers every command of spool --help"
is "$(complete_words "re")" "$(printf 'report\nrecover\nrecord\nreplay\nreceive')" "spool re<Tab> offers report, recover, record, replay, receive"

for c in $cmds; do
	[ "$c" = help ] && { is "$(complete_words help lo)" "locks" "spool help lo<Tab> offers locks"; continue; }
	opts=$("$SPOOL" "$c" --help | sed -n 's/^ \{1,8\}\(-.*\)/\1/p' | sed 's/  .*//' |
		grep -oE -- '(^|[ ,|[])--?[A-Za-z][-A-Za-z0-9]*' | sed 's/^[ ,|[]//' | sort -u)
	got=$(complete_words "$c" -)
	# shellcheck disable=SC2086
	is "$(missing_from "$got" $opts)" "" "spool $c -<Tab> offers its $(wc -w <<<"$opts") options"
done

got=$(complete_words probe -e "")
kinds=$(grep -oE '`(func|block|branch|sys|var|assert|time|args):' "$REPO/doc/probe.md" | tr -d '`' | sort -u)
# shellcheck disable=SC2086
is "$(missing_from "$got" $kinds)" "" "spool probe -e <Tab> offers the spec kinds of doc/probe.md ($(echo $kinds))"
is "$(complete_words probe --probe fu)" "func:" "  --probe fu<Tab> completes func:"

# Trace directories: a trace, a plain directory, a file.
spool_run locks -q -o mytrace -- "$PROGS/lockcount" 1 1
mkdir plaindir
echo x >afile
got=$(complete_words report "")
is "$(head -n 1 <<<"$got")" "mytrace" "spool report <Tab> offers the trace directory first"
like "$got" "plaindir" "  then the other directories"
unlike "$got" "afile" "  and not plain files"
is "$(complete_words locks -o my)" "mytrace" "spool locks -o my<Tab> offers the directory"
is "$(complete_words locks --sort "")" "$(printf 'wait\nacq\ncontended\nhold\nname')" \
	"spool locks --sort <Tab> offers the sort keys"
like "$(complete_words locks -- bas)" "bash" "spool locks -- bas<Tab> offers commands"
done_testing
