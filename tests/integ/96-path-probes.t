#!/bin/bash
# SPDX-License-Identifier: MIT
# 96-path-probes.t - spool path of a program built without
# -finstrument-functions (doc/path.md, "Getting function entries"): spool
# places entry and exit probes on the executable's functions. The plain
# build of the producer/consumer example (tests/progs/path_prodcons.c, the
# same source as path_prodcons-finst.c) must give the records the -finst
# build gives (threads, functions, objects), --check must name the function
# never called, the path of a sync and of a serial recording (spool path
# TRACE replays it with probes) must come out without a divergence, and
# --entries forces one source. pigz (Debian's, stripped) gets a path of
# its functions found from .eh_frame.
. "$(dirname "$0")/lib.sh"

PLAIN="$PROGS/path_prodcons"
FINST="$PROGS/path_prodcons-finst"
if [ ! -x "$PLAIN" ] || [ ! -x "$FINST" ]; then
	echo "1..0 # SKIP $PLAIN or $FINST is not built"
	exit 0
fi

plan 48

# records FILE: the path's records without the comment lines.
records() { grep -v '^#' "$1"; }
# fo FILE: "function object" per record.
fo() { records "$1" | awk '{print $4, $5}'; }
# tfo FILE: "thread function object" per record, the tid left out.
tfo() { records "$1" | awk '{ sub(/\/[0-9]+$/, "", $3); print $3, $4, $5 }'; }

ok "the plain build does not call the -finstrument-functions hooks" \
	bash -c "! nm -D '$PLAIN' | grep -q __cyg_profile_func_enter"

# --- the deterministic single-item run, against the -finst build ---
spool_run path -w finst.txt -- "$FINST"
is_rc 0 "the -finst build: spool path exits 0"
spool_run path -w plain.txt -- "$PLAIN"
is_rc 0 "the plain build: spool path exits 0"
is "$OUT" "consumed 42" "  the program's own stdout is untouched"
like "$ERR" "no -finstrument-functions hooks: function entries from probes on 8 of its 8 functions" \
	"  it says the entries come from probes, and on how many functions"
like "$(head -n 1 plain.txt)" "^# function entries: probes on 8 functions" \
	"  and so does the path's first line"
is "$(fo plain.txt | tr '\n' ' ')" \
	"main* sem:buf_sem producer none lock sem:buf_sem put data unlock sem:buf_sem consumer none lock sem:buf_sem get data unlock sem:buf_sem " \
	"  the functions and objects of the design's example"
is "$(tfo plain.txt)" "$(tfo finst.txt)" "  the same <thread, function, object> records as the -finst build"
ok "  times never go back" awk '!/^#/ { if ($2 < last) exit 1; last = $2 }' plain.txt

spool_run path --show-exits spool.trace
is "$(records run.out | awk '{print $4}' | tr '\n' ' ')" \
	">main* >producer >lock <lock >put <put >unlock <unlock <producer >consumer >lock <lock >get <get >unlock <unlock <consumer <main* " \
	"--show-exits: each exit pairs with its entry (by stack pointer)"
is "$(records run.out | awk '$4 == "<put" {print $5}')" "data" "  an exit carries its call's objects"
spool_run path --json spool.trace
is "$(python3 -c 'import json; d=json.load(open("run.out")); print(d["entries"], " ".join(r["function"] for r in d["records"]))')" \
	"probes main producer lock put unlock consumer lock get unlock" \
	"--json: \"entries\": \"probes\" and the same functions"

# --- --check ---
spool_run path --check spool.trace
is_rc 1 "--check exits 1: a function was never entered"
like "$OUT" "^7 of 8 functions entered \\(.*path_prodcons, the functions spool probed" \
	"  7 of the 8 probed functions entered"
like "$OUT" "never entered: never_called +path_prodcons-finst\\.c:[0-9]+" \
	"  never_called is listed, with its file and line"
is "$(grep -c 'never entered' <<<"$OUT")" 1 "  and nothing else"
spool_run path --check -- "$PLAIN" 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 \
	25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 \
	55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 \
	85 86 87 88 89 90 91 92 93 94 95 96 97 98 99
is_rc 0 "--check of a run that calls never_called too: exit 0"
like "$OUT" "^8 of 8 functions entered" "  8 of 8"

# --- a parallel run: every thread, every call ---
spool_run path -q -w finst3.txt -- "$FINST" 3
spool_run path -q -w plain3.txt -- "$PLAIN" 3
is_rc 0 "spool path -- path_prodcons 3 exits 0"
is "$(records plain3.txt | awk '{print $3}' | sort -u | wc -l)" 7 \
	"  7 threads in the path (main + 3 producers + 3 consumers)"
is "$(fo plain3.txt | sort | uniq -c)" "$(fo finst3.txt | sort | uniq -c)" \
	"  the same calls with the same objects as the -finst build"

# --- recordings: spool path TRACE replays them with probes ---
for mode in sync serial; do
	spool_run record -q --mode "$mode" -o "$mode.trace" -- "$PLAIN" 3
	rec_out="$OUT"
	spool_run path -w "$mode.txt" "$mode.trace"
	is_rc 0 "$mode recording: spool path TRACE exits 0"
	unlike "$ERR" "diverged" "  its replay with probes did not diverge"
	is "$(fo "$mode.txt" | sort | uniq -c)" "$(fo finst3.txt | sort | uniq -c)" \
		"  the calls and objects of the -finst build"
	spool_run replay -q --record-path -o "$mode.rp" "$mode.trace"
	is_rc 0 "  spool replay --record-path exits 0"
	is "$OUT" "$rec_out" "  and prints the recorded output"
done
# serial mode replays the interleaving too: the same path every time
spool_run path -q --show-exits -w serial2.txt serial.trace
spool_run path -q --show-exits -w serial3.txt serial.trace
is "$(tfo serial3.txt)" "$(tfo serial2.txt)" "serial: two replays give the same path, exits included"

# a path cannot be followed without the hooks (the token switches at them)
spool_run replay -q --path serial2.txt -o serial.follow serial.trace
is_rc 1 "replay --path on a program without the hooks: refused"
like "$ERR" "does not call the -finstrument-functions hooks, where a replay switches" \
	"  saying why"

# a trace of spool probe: its function probes are a path too
spool_run probe -q -o probe.trace -e 'func:lock' -e 'func:unlock' -e 'func:producer' -- "$PLAIN"
spool_run path probe.trace
is "$(records run.out | awk '{print $4}' | tr '\n' ' ')" "producer lock unlock lock unlock " \
	"spool path of a spool probe trace: the probed functions"

# --- --entries ---
spool_run path --entries=finstrument -w none.txt -- "$PLAIN"
is_rc 1 "--entries=finstrument on the plain build: exit 1"
like "$ERR" "no function entries from -finstrument-functions" "  saying so"
spool_run path --entries=probes -w forced.txt -- "$FINST"
is_rc 0 "--entries=probes on the -finst build: exit 0"
like "$(head -n 1 forced.txt)" "^# function entries: probes" "  the entries come from probes"
is "$(tfo forced.txt)" "$(tfo finst.txt)" "  and the hooks' own records are left out (no call twice)"
spool_run path --entries=hooks spool.trace
is_rc 2 "--entries=hooks: usage error"

# --- pigz (Debian's build: stripped, exports no function) ---
if ! command -v pigz >/dev/null; then
	skip "pigz is not installed" 7
else
	head -c 300000 /dev/urandom >in.bin
	pigz -p 2 -c in.bin >native.gz
	spool_run path -w pigz.txt -- pigz -p 2 -c in.bin
	is_rc 0 "pigz -p 2: spool path exits 0"
	ok "  pigz's output is its own" cmp -s run.out native.gz
	if readelf -S "$(command -v pigz)" | grep -q '\.symtab'; then
		skip "this pigz is not stripped" 1
	else
		like "$ERR" "pigz is stripped: [0-9]+ of its functions have no name but their \.eh_frame entry" \
			"  stripped: its functions come from .eh_frame"
	fi
	ok "  a path of its functions, on its threads" \
		test "$(records pigz.txt | awk '$4 ~ /^pigz\+0x/' | awk '{print $3}' | sort -u | wc -l)" -ge 2
	like "$(records pigz.txt | awk '{print $5}' | sort -u | tr '\n' ' ')" "lock:.*cond:" \
		"  with its locks and condition variables as objects"
	spool_run record -q --mode sync -o pigz.rec -- pigz -p 2 -c in.bin
	spool_run path -q -w pigz_rec.txt pigz.rec
	is_rc 0 "  spool path of a sync recording of it exits 0 (replayed with probes)"
	ok "  and has its calls" test -n "$(records pigz_rec.txt)"
fi

done_testing
