#!/bin/bash
# SPDX-License-Identifier: MIT
# 112-probe-replay-options.t - every option of `spool probe --help` and
# `spool replay --help` (the tables of src/cmd/run_opts.c) used once the way
# a new user would, on the multi-file C++ program of tests/real/data/shop:
# each one either works (status and output as without it, what it promises
# there) or is refused as a usage error (exit 2) that names the option and
# what it wants. Pins: replay --functions without --record-path was
# ignored without a word, and a --gdbserver port that is not one was said
# only after the trace was read, with exit 1.
. "$(dirname "$0")/lib.sh"
need_progs g++

plan 56

SRC="$REPO/tests/real/data/shop"
g++ -g -O1 -pthread -o shop "$SRC/main.cpp" "$SRC/inventory.cpp" "$SRC/report.cpp" 2>gxx.err
is "$?" 0 "the shop program builds with g++ -g -O1"
native="$(./shop 5)"

# usage_err WHAT RE ARGS...: spool ARGS is a usage error (exit 2) saying RE
usage_err() {
	local what="$1" re="$2"
	shift 2
	spool_run "$@"
	is "$RC" 2 "$what: exit 2"
	like "$ERR" "$re" "  says: $re"
}

# --- spool probe ---
spool_run probe -e 'func:worker' --json -o j.trace -- ./shop 5
is "$RC:$OUT" "0:$native" "probe --json: the program's output unchanged"
like "$ERR" '"name":"worker\(shop::Inventory\*, int, int\)".*"calls":3' "  the JSON report: worker, 3 calls"
spool_run probe -e 'func:shop::Inventory::*' --limit 1 -o l.trace -- ./shop 5
is "$(grep -c '^shop::' run.err)" 1 "probe --limit 1: one row"
spool_run probe -q -e 'func:worker' --ring-size 4k --exits retaddr --until-first-exit \
	--debug-dir /usr/lib/debug -o q.trace -- ./shop 5
is "$RC:$OUT" "0:$native" "probe -q --ring-size 4k --exits retaddr --until-first-exit --debug-dir: works"
unlike "$ERR" "function +calls" "  -q: no report"
like "$ERR" "2 of 2 probes placed, 0 events lost" "  -q: the summary line"
spool_run probe -l -e 'func:shop::Inventory::take' ./shop
is "$RC" 0 "probe -l (--list) exits 0"
like "$OUT$ERR" "take" "  and lists take's probes"
spool_run probe --list-library
is "$RC" 0 "probe --list-library exits 0"
spool_run probe --disabled 'func:worker' -e 'func:shop::Inventory::add' -o d.trace -- ./shop 5
is "$RC:$OUT" "0:$native" "probe --disabled SPEC (launch mode): runs, output unchanged"
spool_run report --functions d.trace
unlike "$OUT" "^worker" "  the disabled probe recorded nothing"
usage_err "probe --limit -1" "--limit '-1': want a number" probe -e 'func:worker' --limit -1 -- ./shop 5
usage_err "probe --ring-size 3k" "--ring-size '3k': want a power of two" \
	probe -e 'func:worker' --ring-size 3k -- ./shop 5
usage_err "probe --exits bogus" "--exits 'bogus': want auto, patch or retaddr" \
	probe -e 'func:worker' --exits bogus -- ./shop 5
usage_err "probe --debug-dir missing" "--debug-dir '/nonexistent[^']*': No such file" \
	probe -e 'func:worker' --debug-dir /nonexistent-dbg -- ./shop 5
usage_err "probe --handler missing" "no such file, and no probe of that name" \
	probe -e 'func:worker' --handler no-such-handler -- ./shop 5
usage_err "probe --stream HOSTPORT" "--stream 'nohostport': want HOST:PORT" \
	probe -e 'func:worker' --stream nohostport -- ./shop 5
usage_err "probe -d without -p" "--duration is for attach mode" probe -e 'func:worker' -d 1s -- ./shop 5
usage_err "probe --commands without -p" "--commands and --control are for attach mode" \
	probe --commands -- ./shop 5
usage_err "probe --control without -p" "--commands and --control are for attach mode" \
	probe --control ctl.sock -e 'func:worker' -- ./shop 5
usage_err "probe -p abc" "--pid 'abc': want 1 to" probe -e 'func:worker' -p abc
usage_err "probe --bogus" "unknown option '--bogus'" probe -e 'func:worker' --bogus -- ./shop 5

# --- spool replay ---
spool_run record -o r.trace -- ./shop 5
is "$RC:$OUT" "0:$native" "record the shop program"
spool_run replay -q r.trace
is "$RC:$OUT:$ERR" "0:$native:" "replay -q: the output, nothing else"
spool_run replay -o r1 --trace-schedule --stuck-ms 100 --no-image --trust-env --env FOO=bar r.trace
is "$RC:$OUT" "0:$native" "replay -o --trace-schedule --stuck-ms --no-image --trust-env --env: the output"
ok "  -o r1: the replay's trace is there" test -d r1
spool_run replay --dump-schedule r.trace
like "$OUT" "^sched obj" "replay --dump-schedule prints the schedule"
spool_run replay --record-path --entries probes -o rp r.trace
is "$RC:$OUT" "0:$native" "replay --record-path --entries probes: the output"
spool_run path rp
like "$OUT" "shop::Inventory::add" "  spool path of it names the program's functions"
if command -v gdb >/dev/null; then
	spool_run replay --gdb --gdb-args '-batch -ex run' r.trace
	like "$OUT" "round 2: " "replay --gdb --gdb-args '-batch -ex run': the program ran under gdb"
else
	skip 1 "no gdb"
fi
usage_err "replay --entries without --record-path" "--entries is for --record-path" \
	replay --entries probes r.trace
usage_err "replay --gdbserver abc" "--gdbserver 'abc': want a port number or -" \
	replay --gdbserver abc r.trace
usage_err "replay --stuck-ms abc" "--stuck-ms 'abc': want 10 to" replay --stuck-ms abc r.trace
usage_err "replay --env FOO" "--env 'FOO': want NAME=VALUE" replay --env FOO r.trace
usage_err "replay --pid abc" "--pid 'abc': want 1 to" replay --pid abc r.trace
spool_run replay --pid 1 r.trace
is "$RC" 1 "replay --pid of no recorded process: exit 1"
like "$ERR" "has no process 1 \\(spool info lists them\\)" "  saying where to look"
spool_run replay --path /nonexistent-path r.trace
is "$RC" 1 "replay --path missing file: exit 1"
like "$ERR" "/nonexistent-path: No such file" "  naming the file"

done_testing
