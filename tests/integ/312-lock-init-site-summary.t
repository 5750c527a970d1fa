#!/bin/bash
# SPDX-License-Identifier: MIT
# 312-lock-init-site-summary.t - two things of the lock report (issue 17):
# - a heap lock is named by its init site's function and offset
#   (worker+0x1d#3, 296); the text report lists under its tables, once per
#   site, the file and line of that site and the indexes of the locks made
#   there, as the JSON's init_site says;
# - the run summary (.spool/summary) counts the locks' events in
#   lock_events= and the threads' (create, start, join, exit) apart in
#   thread_events=, as the summary line "N lock events, T thread events"
#   and the report's JSON do, and spool info says the same. Before,
#   lock_events= was N + T;
# - the report options spool locks and spool report share say the same in
#   both --help texts (spool locks said --top-sites was "per lock (default
#   3)": it is the rows of one table, default 10, in both); and an option
#   name that meant two things in two commands has one now: spool path's
#   --exits (print exits; spool probe's --exits HOW hooks them) is
#   --show-exits, path's and replay's --functions SRC (spool report's
#   --functions is the function report) is --entries SRC, spool record's
#   --check CMD (spool path's --check lists functions never entered) is
#   --check-cmd CMD; the old spellings work for this release, with a
#   warning naming the new one.
. "$(dirname "$0")/lib.sh"

P="$PROGS/lockcount"
plan 17

spool_run locks -o l.trace -- "$P" 3 50
is_rc 0 "spool locks of lockcount (3 threads)"
N=$(summary_events)
T=$(summary_thread_events)
num_cmp "$T" -gt 0 "  the summary line counts thread events ($T)"
is "$(trace_summary l.trace lock_events)" "$N" "  .spool/summary: lock_events= is the summary line's N ($N)"
is "$(trace_summary l.trace thread_events)" "$T" "  .spool/summary: thread_events= is its T"
report_json l.trace
is "$(json report.json 'd["trace"]["lock_events"], d["trace"]["thread_events"]')" "($N, $T)" \
	"  report --json: the same two counts"
spool_run info l.trace
like "$OUT" "events: [0-9]+ \\(lock $N, thread life $T," "  spool info: the same two counts"

spool_run report --locks l.trace
text=$OUT
like "$text" "where the locks named by their init site were made:" \
	"report: a table of the init sites under the lock tables"
# the JSON's heap locks: "site (file:line)" -> their indexes
want=$(json report.json '"\n".join("%s  %s" % (s, " ".join("#%d" % i for i in sorted(v))) for s, v in sorted({s: [l["index"] for l in d["locks"] if l.get("init_site") == s and l["acquisitions"] and l["name"] != "shared_lock"] for s in {l.get("init_site") for l in d["locks"] if l["acquisitions"] and l["name"] != "shared_lock"}}.items()))')
got=$(sed -n '/^where the locks named by their init site were made:/,/^$/p' <<<"$text" |
	sed -n '3,$p' | sed -E 's/^  //; s/ {2,}/  /' | sed '/^$/d')
like "$want" "^worker\\+0x[0-9a-f]+ \\(lockcount\\.c:[0-9]+\\)  #[0-9]+ #[0-9]+ #[0-9]+$" \
	"  (the JSON: the 3 threads' mutexes made at one site of lockcount.c)"
is "$got" "$want" "  its row: the site with file and line, and the 3 locks' indexes"
site=$(sed -E 's/ \(.*//' <<<"$got")
for i in $(grep -oE '#[0-9]+' <<<"$got"); do
	grep -qE "^  $(sed 's/[+.]/\\&/g' <<<"$site")$i " <<<"$text" || miss+="$site$i "
done
is "${miss:-}" "" "  each of them is a row of the lock table named $site#N"
# opt_help CMD OPT: OPT's lines in spool CMD --help (an option's line
# starts with 1 to 8 blanks and a dash; no {1,8}: Debian's mawk has none)
opt_help() {
	"$SPOOL" "$1" --help |
		awk -v o="$2" 'match($0, /^ +-/) && RLENGTH <= 9 { on = index($0, o " ") > 0 } on'
}
for o in --sort --top-sites --limit --json; do
	[ "$(opt_help locks $o)" = "$(opt_help report $o)" ] && [ -n "$(opt_help locks $o)" ] ||
		differ+="$o "
done
is "${differ:-}" "" "locks --help and report --help explain --sort, --top-sites, --limit, --json alike"

spool_run path -q -o pp.trace -w pp.txt -- "$PROGS/path_prodcons"
spool_run path --show-exits pp.trace
like "$OUT" "(^|\n) *[0-9]+ +[0-9.]+ +T[0-9]+/[0-9]+ +<" "path --show-exits prints exits ('<name')"
new_out=$OUT
spool_run path --exits pp.trace
like "$ERR" "--exits is the old spelling of --show-exits" "path --exits: works, with a warning"
is "$OUT" "$new_out" "  and prints what --show-exits does"
spool_run path --functions=probes pp.trace
like "$ERR" "--functions SRC is the old spelling of --entries SRC" "path --functions=probes: a warning"
spool_run record -q --until-fail 1 --check true -o r.trace -- "$P" 1 1
is_rc 0 "record --until-fail 1 --check true: still works"
like "$ERR" "--check CMD is the old spelling of --check-cmd CMD" "  with a warning"
done_testing
