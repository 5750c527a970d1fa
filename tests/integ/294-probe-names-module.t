#!/bin/bash
# SPDX-License-Identifier: MIT
# 294-probe-names-module.t - the probes a user sees name functions as a C++
# programmer writes them and modules by their files (issue 17): `list` of
# spool probe -p PID --commands on a g++ program shows
# "Bank::transfer(int, int, long)" after the symbol _ZN4Bank8transferEiil,
# and the program's own path as module, not "-"; the trace's probes side
# file (version 2) says the same. spool path reads that side file, and the
# version 1 one of an older spool (module "-", no function column): the same
# records and the same --check either way.
. "$(dirname "$0")/lib.sh"

plan 16
if ! command -v g++ >/dev/null || ! command -v python3 >/dev/null; then
	skip 16 "no g++ or no python3"
	done_testing
	exit 0
fi
g++ -g -O1 -pthread -o live_bank "$REPO/tests/progs/cxx/live_bank.cpp" 2>cc.err
ok "the C++ program builds" test -x live_bank || diag "$(cat cc.err)"
EXE=$(readlink -f live_bank)

# --- list while attached -----------------------------------------------------
rm -f stop.now
./live_bank stop.now >prog.out &
PID=$!
wait_for ready prog.out 15
RUN_STDIN=cmds; printf "list\n" >cmds
spool_run probe -p "$PID" --commands -e 'func:*transfer*' -o t.trace
RUN_STDIN=/dev/null
is_rc 0 "spool probe -p PID --commands, list, end of stdin"
touch stop.now
wait "$PID"
is "$?:$(tr '\n' '|' <prog.out)" "0:ready|done 1|" "the program's output and status are its own"
rows=$(grep -E '^[0-9]+ ' run.out)
is "$(awk '{print $2, $6, $4}' <<<"$rows" | sort | tr '\n' '|')" \
	"entry _ZN4Bank8transferEiil $EXE|exit _ZN4Bank8transferEiil $EXE|" \
	"list: an entry and an exit probe, symbol _ZN4Bank8transferEiil, module the program's path"
is "$(cut -d' ' -f9- <<<"$rows" | sort -u)" "Bank::transfer(int, int, long)" \
	"  the function column is demangled: Bank::transfer(int, int, long)"
like "$(head -n 1 run.out)" "^# id op method module offset symbol state hits function$" \
	"  its header names the columns"

P=t.trace/.spool/probes
is "$(head -n 1 "$P")" "# spool probes 3" "the probes side file is version 3"
is "$(grep '^# exe ' "$P")" "# exe $EXE" "  it names the executable"
is "$(grep -E '^[0-9]+ ' "$P" | cut -d' ' -f4,6- | sort -u)" \
	"$EXE _ZN4Bank8transferEiil Bank::transfer(int, int, long)" \
	"  module path, symbol and demangled function on each line"
spool_run report --functions --json t.trace
is "$(json run.out '[f["module"] for f in d["functions"]][0]')" "$EXE" \
	"  report --functions --json: the program's path as module"

# --- spool path, version 2 and version 1 side files --------------------------
PLAIN="$PROGS/path_prodcons"
if [ ! -x "$PLAIN" ]; then
	skip 6 "$PLAIN is not built"
	done_testing
	exit 0
fi
spool_run path -w new.txt -- "$PLAIN"
is_rc 0 "spool path of path_prodcons (entries from probes)"
is "$(grep -cE "^[0-9]+ (entry|exit) [a-z0-9]+ $(readlink -f "$PLAIN") " spool.trace/.spool/probes)" \
	"$(grep -cE '^[0-9]+ (entry|exit) ' spool.trace/.spool/probes)" \
	"  its side file names the executable by its path on every function probe"
spool_run path --check spool.trace
like "$OUT" "^7 of 8 functions entered" "  --check: 7 of the 8 probed functions entered"

# the same trace as an older spool wrote it: module "-" for the executable,
# no "# spool probes" and "# exe" lines, no function column
python3 - spool.trace/.spool/probes "$(readlink -f "$PLAIN")" <<'PY'
import sys
p, exe = sys.argv[1], sys.argv[2]
out = ["# id op method module offset function\n"]
for l in open(p):
    if l.startswith("#"):
        continue
    f = l.split(" ", 6)
    if f[3] == exe:
        f[3] = "-"
    out.append(" ".join(f[:6]).rstrip("\n") + "\n")
open(p, "w").write("".join(out))
PY
ok "crafted: a version 1 side file" grep -qE '^[0-9]+ entry [a-z0-9]+ - ' spool.trace/.spool/probes
spool_run path --check spool.trace
like "$OUT" "^7 of 8 functions entered" "  --check of the version 1 side file: the same"
spool_run path -w old.txt spool.trace
is "$(grep -v '^#' old.txt | awk '{print $4, $5}')" "$(grep -v '^#' new.txt | awk '{print $4, $5}')" \
	"  spool path: the same functions and objects as from version 3"
done_testing
