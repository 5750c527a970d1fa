#!/bin/bash
# SPDX-License-Identifier: MIT
# 249-run-options.t - the commands that run a program (locks,
# probe, path, record, replay) take their options from tables with their
# help lines (src/cmd/run_opts.c): what a user checks is that every option
# --help lists is one the command takes,
# that an option missing its value says so, that the options the running
# commands share are explained in the same words in each, and that -o of
# spool replay (the replay's own trace, as its help says) still does that.
. "$(dirname "$0")/lib.sh"

plan 19

# Option names printed by `spool CMD --help` (as 165 and 166 read them).
help_opts() {
	"$SPOOL" "$1" --help | sed -n 's/^ \{1,8\}\(-.*\)/\1/p' | sed 's/  .*//' |
		grep -oE -- '(^|[ ,|[])--?[A-Za-z][-A-Za-z0-9]*' | sed 's/^[ ,|[]//' | sort -u
}

# Each listed option, with a value when its line shows one, is not refused
# as unknown (its value may be wrong: that is another message).
for c in locks probe path record replay; do
	n=0 bad=
	for o in $(help_opts "$c"); do
		n=$((n + 1))
		case "$o" in -h | --help) continue ;; esac
		line=$("$SPOOL" "$c" --help | grep -E -- "(^|[ ,])$o( |,|$)" | head -n 1)
		if grep -qE -- "$o [A-Z|]" <<<"$line"; then
			timeout 20 "$SPOOL" "$c" "$o" x-value </dev/null >/dev/null 2>opt.err
		else
			timeout 20 "$SPOOL" "$c" "$o" </dev/null >/dev/null 2>opt.err
		fi
		grep -q "unknown option" opt.err && bad+=" $o"
	done
	num_cmp "$n" -ge 10 "spool $c --help lists its options ($n)"
	is "$bad" "" "  spool $c takes every option its --help lists"
done

"$SPOOL" probe --limit >/dev/null 2>opt.err
is "$?" 2 "spool probe --limit without its value is a usage error"
like "$(cat opt.err)" "option '--limit' needs a value" "  and says the value is missing"
"$SPOOL" replay --stuck-ms 3 x.trace >/dev/null 2>opt.err
like "$(cat opt.err)" "--stuck-ms '3': want 10 to 3600000" "spool replay checks --stuck-ms's value"
"$SPOOL" record --bogus -- true >/dev/null 2>opt.err
is "$?:$(cat opt.err)" "2:spool: error: unknown option '--bogus' (see spool record --help)" \
	"an unknown option is a usage error that names it"

# A shared option reads the same in every command that takes it.
ring() { "$SPOOL" "$1" --help | grep -A1 -- '--ring-size SIZE'; }
same=1
for c in probe record path; do
	[ "$(ring "$c")" = "$(ring locks)" ] || same=0
done
is "$same" 1 "--ring-size's help is the same in locks, probe, record and path"
like "$("$SPOOL" probe --help)" "--stream HOST:PORT  send the trace" "spool probe lists --stream, from the shared table"
is "$("$SPOOL" probe --help | grep -c -- '--stream') $("$SPOOL" record --help | grep -c -- '--stream')" "1 1" \
	"  once, as spool record does"

# -o of spool replay: the replay's trace, said and done.
like "$("$SPOOL" replay --help | grep -A1 -- '-o, --output DIR')" "the replay's own trace" \
	"spool replay --help says -o is the replay's own trace"
spool_run record -q -o rec.trace -- "$PROGS/lockcount" 2 100
"$SPOOL" replay -q -o mine.trace rec.trace >/dev/null 2>rep.err
ok "spool replay -o mine.trace writes the replay's trace there" \
	bash -c 'test -f mine.trace/metadata && ! test -e rec.trace/replays/1'
done_testing
