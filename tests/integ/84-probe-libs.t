#!/bin/bash
# SPDX-License-Identifier: MIT
# 84-probe-libs.t - variable, assertion and time probes inside a shared
# library (var:TYPE:NAME@LIB:FUNC:exit ...), in launch mode and in attach
# mode (spool probe -p PID).
#
# The library and its program are built here from tests/progs/probe_libvars.c
# (tests/progs builds programs only; plvd loads it with dlopen): lib_compute(k) prints the int, long and
# double it computes and the library's global total; the values spool reads
# at its exit must be exactly the printed ones. Attach mode: the program
# calls lib_compute every 20 ms until a stop file appears; every value read
# while attached must be one the program printed for the same k.
#
# Separate debug files: a program stripped after objcopy --only-keep-debug
# put its DWARF and symbols under DIR/.build-id/xx/yyyy.debug (spool probe
# --debug-dir DIR; SPOOL_DEBUG_DIR for spool report), and a library whose
# debug file is found through its .gnu_debuglink in .debug/ next to it:
# coverage lines, variable values and caller names must be those of the
# unstripped build.
. "$(dirname "$0")/lib.sh"

if ! command -v gcc >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP gcc/python3 are not installed"
	exit 0
fi
plan 24

cp "$REPO/tests/progs/probe_libvars.c" plv.c
ok "the library (-O0 and -O2) and its program build" sh -c '
	gcc -O0 -g -fPIC -shared -DPROBE_LIBVARS_LIB -o libpvars.so plv.c &&
	mkdir -p o2 && gcc -O2 -g -fPIC -shared -DPROBE_LIBVARS_LIB -o o2/libpvars.so plv.c &&
	gcc -O0 -g -DPROBE_LIBVARS_MAIN -o plv plv.c -L. -lpvars -Wl,-rpath,"$PWD" &&
	gcc -O0 -g -DPROBE_LIBVARS_MAIN -DPROBE_LIBVARS_NOLINK -o plvd plv.c'

LIB=libpvars.so
N=5
# values of the vars report (JSON on stdin) as the program's lines
# "k=.. i=.. l=.. d=.. total=.."
vars_as_lines() {
	python3 -c '
import json, sys
v = {x["name"]: x["values"] for x in json.load(sys.stdin)["vars"]}
for j in range(len(v["k"])):
    print("k=%s i=%s l=%s d=%s total=%s" % tuple(v[n][j]["value"] for n in ("k", "i", "l", "d", "lib_total")))
'
}
SPECS=(-e "var:int:k@$LIB:lib_compute:exit" -e "var:int:i@$LIB:lib_compute:exit"
	-e "var:long:l@$LIB:lib_compute:exit" -e "var:double:d@$LIB:lib_compute:exit"
	-e "var:auto:lib_total@libpv*:lib_compute:exit")

# --- launch mode, -O0 ------------------------------------------------------------
native="$(./plv $N)"
spool_run probe -q "${SPECS[@]}" -- ./plv $N
is_rc 0 "variable probes in a library: the program runs"
is "$OUT" "$native" "... its output is unchanged"
like "$(cat spool.trace/.spool/vars)" 'double lib_total lib_compute exit 1 \[0x[0-9a-f]+\]' \
	"the library's global is read at its address (plus the library's load bias)"
spool_run report --vars --json spool.trace
got="$(vars_as_lines <run.out)"
is "$got" "$(printf '%s\n' "$native" | grep '^k=')" \
	"int, long, double locals and the library's global read as the program printed them"

# --- a library the program loads later with dlopen --------------------------------
native="$(LD_LIBRARY_PATH="$PWD" PROBE_LIBVARS_DLOPEN=$LIB ./plvd $N)"
LD_LIBRARY_PATH="$PWD" PROBE_LIBVARS_DLOPEN=$LIB spool_run probe -q "${SPECS[@]}" -- ./plvd $N
spool_run report --vars --json spool.trace
is "$(vars_as_lines <run.out)" "$(printf '%s\n' "$native" | grep '^k=')" \
	"variables of a library loaded with dlopen, read once it is loaded"

# --- assertions and time probes in the library -----------------------------------
spool_run probe -q -e "assert:k < 2@$LIB:lib_compute" -e "time:$LIB:lib_compute" -- ./plv $N
is_rc 0 "assert: and time: in a library"
spool_run report --vars --json spool.trace
got="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d["asserts"][0]; t=d["times"][0]; print(a["true"], a["false"], a["first_failure"]["values"], t["count"])' run.out)"
is "$got" "2 $((N - 2)) k=2 $N" "k < 2 holds twice and first fails at k=2; time: sees $N calls"

# --- -O2: the parameters in registers at the entry -------------------------------
LD_LIBRARY_PATH="$PWD/o2" spool_run probe -q -e "var:int:k@$LIB:lib_compute" \
	-e "var:double:scale@$LIB:lib_compute" -- ./plv $N
is_rc 0 "-O2 library: variable probes at the entry"
spool_run report --vars --json spool.trace
got="$(python3 -c 'import json,sys; v={x["name"]:x for x in json.load(open(sys.argv[1]))["vars"]}; print(" ".join(p["value"] for p in v["k"]["values"]), "/", " ".join(sorted(set(p["value"] for p in v["scale"]["values"]))))' run.out)"
is "$got" "$(seq -s ' ' 0 $((N - 1))) / 1.5" "-O2 library: k and scale read as passed"

# --- bad specs -------------------------------------------------------------------
spool_run probe -e "var:int:nosuch@$LIB:lib_compute" -- ./plv 1
like "$ERR" "no variable 'nosuch' in lib_compute" "a variable the library's function lacks is named"
spool_run probe -e "var:int:k@$LIB:no_such_fn" -- ./plv 1
like "$ERR" "no function no_such_fn in the libraries matching" "a function the library lacks is named"

# --- attach mode -----------------------------------------------------------------
# wait_lines FILE N: until the program has printed N lines
wait_lines() {
	local i
	for i in $(seq 1 100); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
rm -f stop.now
./plv 3 stop.now >prog.out &
PID=$!
wait_lines prog.out 3
L="$(grep -n 'lib_total += d' plv.c | cut -d: -f1)"
spool_run probe -q -p "$PID" "${SPECS[@]}" -e "assert:k >= 3@$LIB:lib_compute" \
	-e "time:$LIB:lib_compute:entry..$LIB:lib_compute:$L" --duration 700ms
is_rc 0 "attach mode: variable probes in a library"
touch stop.now
wait "$PID"
is "$?" 0 "... the program runs on and exits normally"
spool_run report --vars --json spool.trace
vars_as_lines <run.out >read.txt
n="$(wc -l <read.txt)"
missing="$(grep -vxFf prog.out read.txt | head -3)"
if [ "$n" -ge 5 ] && [ -z "$missing" ]; then
	pass "attach mode: $n hits, every value read is one the program printed"
else
	fail "attach mode: every value read is one the program printed"
	diag "hits: $n" "not printed: $missing"
fi
# every call probed while attached had k >= 3 (spool attached once the
# program had printed the lines of k = 0, 1, 2); spans from the entry to a line: one
# per call, but for the calls the attach or the detach cut in two
got="$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); a = d["asserts"][0]; t = d["times"][0]; n = int(sys.argv[2])
print("ok" if a["false"] == 0 and abs(a["true"] - n) <= 1 and n - 1 <= t["count"] <= n + 1
      else "assert %d/%d time %d hits %d" % (a["true"], a["false"], t["count"], n))' run.out "$n")"
is "$got" ok "attach mode: assert: and time: in the library, one per call"

# --- separate debug files --------------------------------------------------------
# keep_debug FILE DIR: FILE's debug info into DIR/.build-id/, FILE stripped
keep_debug() {
	local id
	id="$(readelf -n "$1" | awk '/Build ID/ { print $3 }')"
	[ -n "$id" ] || return 1
	mkdir -p "$2/.build-id/${id:0:2}" &&
		objcopy --only-keep-debug "$1" "$2/.build-id/${id:0:2}/${id:2}.debug" && strip "$1"
}
cp "$REPO/tests/progs/probe_cov.c" cov.c
ok "stripped programs with their debug files under a .build-id directory" sh -c '
	gcc -O0 -g -o cov cov.c && cp cov cov.full && gcc -O0 -g -o plvs plv.c' &&
	keep_debug cov dbg && keep_debug plvs dbg
spool_run probe -q -e 'block:*' -- ./cov.full 200
spool_run report --coverage -w full.info spool.trace
spool_run probe -q --debug-dir dbg -e 'block:*' -- ./cov 200
SPOOL_DEBUG_DIR=dbg spool_run report --coverage -w strip.info spool.trace
full="$(grep -E '^(DA|FN|FNDA):' full.info)"
got="$(grep -E '^(DA|FN|FNDA):' strip.info)"
if [ "$(printf '%s\n' "$full" | grep -c '^DA:')" -ge 30 ] && [ "$got" = "$full" ]; then
	pass "coverage of the stripped program (static functions too) equals the unstripped one's"
else
	fail "coverage of the stripped program equals the unstripped one's"
	diag "$(diff <(printf '%s\n' "$full") <(printf '%s\n' "$got") | head -10)"
fi

native="$(./plvs $N)"
spool_run probe -q --debug-dir dbg -e 'var:int:k@lib_compute:exit' -e 'var:int:i@lib_compute:exit' \
	-e 'var:long:l@lib_compute:exit' -e 'var:double:d@lib_compute:exit' \
	-e 'var:auto:lib_total@lib_compute:exit' -- ./plvs $N
spool_run report --vars --json spool.trace
is "$(vars_as_lines <run.out)" "$(printf '%s\n' "$native" | grep '^k=')" \
	"variables of the stripped program read through its debug file"
spool_run probe -q -e 'var:int:i@lib_compute:exit' -- ./plvs 1
like "$ERR" 'no DWARF|no function' "without its debug file, the stripped program's variables are refused"

spool_run probe --debug-dir dbg -e 'func:both' -- ./cov 30
like "$ERR" '<- main' "the caller of a probed function in the stripped program is named (main: .symtab of the debug file)"
SPOOL_DEBUG_DIR="$PWD/dbg" spool_run report --functions spool.trace
like "$OUT$ERR" '<- main' "... by spool report too (SPOOL_DEBUG_DIR)"

# a library found through .gnu_debuglink, in .debug/ next to it
mkdir -p s/.debug && cp libpvars.so s/ &&
	objcopy --only-keep-debug s/libpvars.so s/.debug/libpvars.so.debug && strip s/libpvars.so &&
	objcopy --add-gnu-debuglink=s/.debug/libpvars.so.debug s/libpvars.so
native="$(LD_LIBRARY_PATH="$PWD/s" ./plv $N)"
LD_LIBRARY_PATH="$PWD/s" spool_run probe -q "${SPECS[@]}" -- ./plv $N
is_rc 0 "a stripped library with a .gnu_debuglink"
spool_run report --vars --json spool.trace
is "$(vars_as_lines <run.out)" "$(printf '%s\n' "$native" | grep '^k=')" \
	"... its variables read through the linked debug file"

done_testing
