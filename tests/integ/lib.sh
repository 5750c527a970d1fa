# SPDX-License-Identifier: MIT
# lib.sh - shared helpers for the TAP integration tests (sourced by every
# tests/integ/*.t, run by prove).
#
# Environment: SPOOL_BUILD=<absolute build dir> (spool and the agent are in
# it); SPOOL_PROGS overrides where the test programs are (default
# $SPOOL_BUILD/tests/progs; the AddressSanitizer pass points it at the normal
# build); SPOOL_ASAN=1 during that pass.
#
# Each test runs in its own temporary directory under /tmp, removed on exit,
# so spool.trace/ lands there. The helpers print TAP ("ok N - ...") and, on
# failure, what was expected and what spool said, as "# " diagnostics.
#
# Everything that depends on the layout of spool's output (the summary line,
# the JSON report of doc/report-locks.md) is parsed here and only here, so a
# format change is one edit.

# shellcheck disable=SC2034 # variables used by the sourcing tests
set -u

if [ -z "${SPOOL_BUILD:-}" ]; then
	echo "1..0 # SKIP SPOOL_BUILD is not set (run through make check)"
	exit 0
fi
SPOOL="$SPOOL_BUILD/spool"
PROGS="${SPOOL_PROGS:-$SPOOL_BUILD/tests/progs}"
SPOOL_ASAN="${SPOOL_ASAN:-0}"
# Runs must end: a hung target or collector fails the test instead of the suite.
T_TIMEOUT="${SPOOL_TEST_TIMEOUT:-300}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"

for _f in "$SPOOL" "$PROGS/lockcount"; do
	if [ ! -x "$_f" ]; then
		echo "1..0 # SKIP $_f is not built"
		exit 0
	fi
done
unset _f

# The source tree (for test data), found before leaving for the temp dir.
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
T_DIR="$(mktemp -d /tmp/spool-test.XXXXXX)"
T_NUM=0
T_FAILED=0
T_PLANNED=0
_t_cleanup() {
	cd /
	if [ "${SPOOL_KEEP_TMP:-0}" = 1 ]; then
		echo "# kept $T_DIR" >&2
	else
		rm -rf "$T_DIR"
	fi
}
trap _t_cleanup EXIT
cd "$T_DIR" || exit 1
# The user's configuration (spool probe --handler stores probes in its
# library there) is the test's own.
export XDG_CONFIG_HOME="$T_DIR/.config"
# and its cache (spool probe keeps its plans there: probe_cache.h)
export XDG_CACHE_HOME="$T_DIR/.cache"

# --- TAP -------------------------------------------------------------------

plan() {
	T_PLANNED="$1"
	echo "1..$1"
}

# diag LINES...: each argument (possibly multi-line) as "# " comment lines.
diag() {
	local a line
	for a in "$@"; do
		while IFS= read -r line; do
			echo "# $line"
		done <<<"$a"
	done >&2
}

# pass/fail DESC
pass() {
	T_NUM=$((T_NUM + 1))
	echo "ok $T_NUM - $1"
}

fail() {
	T_NUM=$((T_NUM + 1))
	T_FAILED=$((T_FAILED + 1))
	echo "not ok $T_NUM - $1"
}

# ok DESC CMD [ARGS...]: passes when CMD exits 0.
ok() {
	local desc="$1"
	shift
	if "$@"; then
		pass "$desc"
	else
		fail "$desc"
		diag "command failed: $*"
		return 1
	fi
}

# todo_ok REASON DESC CMD [ARGS...]: like ok, for a known bug: TAP's TODO
# directive, so prove lists it (and says when it starts passing) without
# failing the run. REASON names the bug; keep the list of these short.
todo_ok() {
	local why="$1" desc="$2"
	shift 2
	T_NUM=$((T_NUM + 1))
	if "$@"; then
		echo "ok $T_NUM - $desc # TODO $why"
	else
		echo "not ok $T_NUM - $desc # TODO $why"
	fi
}

# is GOT WANT DESC
is() {
	if [ "$1" == "$2" ]; then
		pass "$3"
	else
		fail "$3"
		diag "got:  '$1'" "" "want: '$2'"
		return 1
	fi
}

# like GOT ERE DESC / unlike GOT ERE DESC (extended regex, multi-line GOT)
like() {
	if grep -Eq -- "$2" <<<"$1"; then
		pass "$3"
	else
		fail "$3"
		diag "no match for /$2/ in:" "$1"
		return 1
	fi
}

unlike() {
	if grep -Eq -- "$2" <<<"$1"; then
		fail "$3"
		diag "unexpected match for /$2/ in:" "$1"
		return 1
	else
		pass "$3"
	fi
}

# num_cmp GOT OP WANT DESC, OP one of -eq -ne -lt -le -gt -ge. A GOT that is
# not an integer fails (it usually means the report lacked the field).
num_cmp() {
	if [[ "$1" =~ ^-?[0-9]+$ ]] && [[ "$3" =~ ^-?[0-9]+$ ]] && test "$1" "$2" "$3"; then
		pass "$4"
	else
		fail "$4"
		diag "want: $1 $2 $3"
		return 1
	fi
}

skip() {
	local n="$1" i
	shift
	for ((i = 0; i < n; i++)); do
		T_NUM=$((T_NUM + 1))
		echo "ok $T_NUM # skip $*"
	done
}

# done_testing: the exit status prove expects (it also checks the plan).
done_testing() {
	if [ "$T_NUM" -ne "$T_PLANNED" ]; then
		diag "planned $T_PLANNED tests, ran $T_NUM"
		exit 255
	fi
	if [ "$T_SANITIZER" = 1 ]; then
		diag "spool printed a sanitizer report (see above)"
		exit 254
	fi
	[ "$T_FAILED" -eq 0 ]
	exit $?
}

# --- running spool ---------------------------------------------------------

# spool_run ARGS...: runs spool with stdin from /dev/null (or $RUN_STDIN),
# leaving stdout in $OUT/out, stderr in $ERR/err and the status in $RC.
# The file names are fixed (run.out, run.err) so a failed test can show them.
RUN_STDIN=/dev/null
spool_run() {
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" "$@" <"$RUN_STDIN" >run.out 2>run.err
	RC=$?
	# (binary output is compared with cmp on run.out; $OUT drops NUL bytes)
	OUT="$(tr -d '\0' <run.out)"
	ERR="$(cat run.err)"
	if [ "$RC" = 124 ]; then
		diag "spool $* timed out after ${T_TIMEOUT}s"
	fi
	check_sanitizer run.err "spool $*"
	return 0
}

# check_sanitizer FILE WHAT: a sanitizer report in spool's stderr is a bug
# in spool even when the output looked right: remember it, and done_testing
# fails the test file (the AddressSanitizer pass, SPOOL_ASAN=1).
T_SANITIZER=0
SANITIZER_RE='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:'
check_sanitizer() {
	if grep -Eq "$SANITIZER_RE" "$1"; then
		T_SANITIZER=1
		diag "sanitizer report from $2:" "$(grep -E -A 20 "$SANITIZER_RE" "$1" | head -n 40)"
	fi
}

# show_run: dump the last run's stderr as diagnostics (call after a failure).
show_run() {
	diag "spool exit status: $RC" "stderr:" "$(tail -n 40 run.err)"
}

# need_cc: CC (default cc) is a C compiler, else the test is skipped.
need_cc() {
	CC="${CC:-cc}"
	if ! command -v "$CC" >/dev/null; then
		echo "1..0 # SKIP no C compiler"
		exit 0
	fi
}

# early_prog_build: libearly.so from early.c (a library whose constructors
# run before the preloaded agent's) and early_prog from main.c, linked to
# it (tests/integ/223, 245); a bail-out when they do not build.
early_prog_build() {
	"$CC" -shared -fPIC -O1 -o libearly.so early.c &&
		"$CC" -O1 -o early_prog main.c -L. -Wl,--no-as-needed -learly -Wl,-rpath,"$PWD" || {
		echo "Bail out! cannot build the test program"
		exit 1
	}
}

# early_rr MODE WHAT CHECK: records ./early_prog in MODE into MODE.trace
# (its output: MODE.rec.out), runs CHECK MODE (the test of what the
# recording kept), then 2 replays must print what the recording printed
# ("MODE: 2 replays print WHAT"). 3 tests and CHECK's.
early_rr() {
	spool_run record -q --mode "$1" -o "$1.trace" -- ./early_prog
	is_rc 0 "$1: record exits with the program's status"
	cp run.out "$1.rec.out"
	"$3" "$1"
	replays_same 2 0 "$1.rec.out" -q "$1.trace"
	is "$SAME" 2 "$1: 2 replays print $2"
}

# replays_same N WANT_RC WANT_OUT ARGS...: runs spool replay ARGS N times;
# SAME = how many exited WANT_RC with stdout equal to the file WANT_OUT (the
# others are shown as diagnostics, with how their output differs).
replays_same() {
	local n=$1 rc=$2 want=$3 i
	shift 3
	SAME=0
	for ((i = 0; i < n; i++)); do
		# (REPLAYS_PAUSE: seconds before each, e.g. for a replay's own
		# clock to be later than the recorded one)
		[ -n "${REPLAYS_PAUSE:-}" ] && sleep "$REPLAYS_PAUSE"
		spool_run replay "$@"
		if [ "$RC" = "$rc" ] && cmp -s run.out "$want"; then
			SAME=$((SAME + 1))
		else
			show_run
			diag "replay output against the recorded one:" \
				"$(diff "$want" run.out | head -n 20)"
		fi
	done
}

# --- programs running in the background ----------------------------------

# wait_for TEXT FILE [SECONDS]: until FILE holds TEXT (default 30 s at most).
wait_for() {
	local i
	for ((i = 0; i < ${3:-30} * 20; i++)); do
		grep -q "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# wait_ready FILE: until the program printed its "ready" line (15 s at most).
wait_ready() { wait_for ready "$1" 15; }

# The probe_live target (tests/progs/probe_live.c) and a python driver of
# spool probe -p (tests/integ/probe_live.py), for the attach-mode tests.
# spool replay --gdbserver under gdb, on tests/progs/rr_rev_bank (151-153).
# need_gdb: the test is skipped (said) without gdb, or when gdb cannot run
# a program here (ptrace not permitted).
need_gdb() {
	if ! command -v gdb >/dev/null 2>&1; then
		echo "1..0 # SKIP gdb is not installed"
		exit 0
	fi
	if ! gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1; then
		echo "1..0 # SKIP gdb cannot run programs here (ptrace not permitted?)"
		exit 0
	fi
}

# gdbsrv_bank: the test is skipped without gdb; BIN and SRC are the
# program and its source, and gdbsrv gives gdb the binary.
gdbsrv_bank() {
	if ! command -v gdb >/dev/null 2>&1; then
		echo "1..0 # SKIP gdb is not installed"
		exit 0
	fi
	BIN="$PROGS/rr_rev_bank"
	SRC="$REPO/tests/progs/rr_rev_bank.c"
	GDBSRV_BIN="$BIN"
}

# goto_recording: BIN (rr_goto), its SRC, UNLOCK (the line of its first
# unlock) and GDBSRV_BIN; records it into rec with snapshots (1 test; its
# output in rec.out), E: an event about half-way (tests/integ/255, 256).
goto_recording() {
	BIN="$PROGS/rr_goto"
	SRC="$REPO/tests/progs/rr_goto.c"
	UNLOCK=$(grep -n 'pthread_mutex_unlock(&m);' "$SRC" | head -1 | cut -d: -f1)
	GDBSRV_BIN="$BIN"
	spool_run record --chaos --snap-period 150 -o rec -- "$BIN" 4 300
	is_rc 0 "record --snap-period 150"
	cp run.out rec.out
	EVENTS=$(sed -nE 's/.* ([0-9,]+) schedule events.*/\1/p' run.err | tr -d , | head -1)
	E=$((EVENTS / 2 + RANDOM % 100))
}

# line_of MARK: the line of SRC that holds /* MARK */.
line_of() { grep -n "/\* $1 \*/" "$SRC" | cut -d: -f1; }

# gdbsrv ARGS...: gdb in batch mode, connected to `spool replay --gdbserver
# - rec` ($GDBSRV_OPTS before it, when set: --goto EVENT), with ARGS (its -ex commands) and then $GDBSRV_BIN when set, after
# loading $GDBSRV_EXT when set: its output in gdb.out and $G ($G1: on one
# line, for what spans lines), its status in $GRC.
gdbsrv() {
	local pre=() post=()
	[ -n "${GDBSRV_EXT:-}" ] && pre=(-x "$GDBSRV_EXT")
	[ -n "${GDBSRV_BIN:-}" ] && post=("$GDBSRV_BIN")
	timeout -k 5 180 gdb -q -batch -nx "${pre[@]}" \
		-ex "target remote | $SPOOL replay ${GDBSRV_OPTS:-}--gdbserver - rec" "$@" "${post[@]}" >gdb.out 2>&1
	GRC=$?
	check_sanitizer gdb.out "gdb on spool replay --gdbserver"
	G="$(cat gdb.out)"
	G1="$(tr '\n' ' ' <gdb.out)"
}

# live_prog: PROG, the probe_live target; the test is skipped without it
# (x86-64 only) or without python3.
live_prog() {
	PROG="$PROGS/probe_live"
	if [ ! -x "$PROG" ] || ! command -v python3 >/dev/null; then
		echo "1..0 # SKIP $PROG is not built (x86-64 only), or no python3"
		exit 0
	fi
}

# live_start PROG: start PROG with its stop file stop.now, output to
# prog.out, in the background as $LIVE_PID; wait until it runs.
live_start() {
	rm -f stop.now
	"$1" stop.now >prog.out &
	LIVE_PID=$!
	wait_for ready prog.out 15
}

# live_checks: run the python read from stdin with spool (the binary) and
# pid ($LIVE_PID) set and every name of probe_live.py imported (Spool,
# Control, check, hits, grows, ...); each check(ok, desc, why...) it made
# is a TAP line; what it wrote on stderr, and spool.err, are diagnostics.
live_checks() {
	local res desc why
	{
		printf 'import os, sys, time\nsys.path.insert(0, %s)\n' "'$REPO/tests/integ'"
		printf 'from probe_live import *\nspool, pid = sys.argv[1], int(sys.argv[2])\n'
		cat
	} >live_checks.py
	python3 live_checks.py "$SPOOL" "$LIVE_PID" >checks.out 2>checks.err
	while IFS=$'\t' read -r res desc why; do
		if [ "$res" = PASS ]; then pass "$desc"; else fail "$desc"; diag "$why"; fi
	done <checks.out
	[ -s checks.err ] && diag "$(cat checks.err)" "$(cat spool.err 2>/dev/null)"
}

# live_stop: end the target; its output and status must be its own.
live_stop() {
	touch stop.now
	wait "$LIVE_PID"
	is "$?:$(tr '\n' '|' <prog.out)" "0:ready|done check ok|" "the program's output and status are its own"
}

# cmds_attach PID ARGS...: spool probe -p PID --commands ARGS... in the
# background ($SP), its commands written to fd 3 (the fifo cmds), its
# answers in cmd.out, its messages in cmd.err; returns once it reads
# commands (said as a diagnostic when it never does). cmd sends them;
# `echo detach >&3; exec 3>&-; wait "$SP"` ends it.
cmds_attach() {
	local pid="$1"
	shift
	mkfifo cmds
	timeout -k 10 120 "$SPOOL" probe -p "$pid" --commands "$@" <cmds >cmd.out 2>cmd.err &
	SP=$!
	exec 3>cmds
	NANS=0
	wait_for 'commands on stdin' cmd.err 60 || diag "no attach: $(tail -n 5 cmd.err)"
}

# cmd LINE: send a command to cmds_attach's spool, wait for its answer's
# last line (ok or error)
cmd() {
	local i
	echo "$1" >&3
	NANS=$((NANS + 1))
	for i in $(seq 1 600); do
		[ "$(grep -cE '^(ok|error)' cmd.out)" -ge "$NANS" ] && return 0
		sleep 0.05
	done
	diag "no answer to '$1'"
	return 1
}

# prog_of PID: the recorded or replayed program under PID (spool, or the
# timeout that runs spool)
prog_of() {
	local p="$1" c i
	for i in 1 2 3; do
		c=$(pgrep -P "$p" | head -n 1)
		[ -n "$c" ] || return 1
		case "$(cat "/proc/$c/comm" 2>/dev/null)" in
		spool | timeout) p=$c ;;
		*) echo "$c"; return 0 ;;
		esac
	done
	return 1
}

# usr1_until_exit PID: a SIGUSR1 every 0.2 s to the program under PID while
# it runs (at most 150)
usr1_until_exit() {
	local pid i
	pid=$(prog_of "$1") || return 1
	for i in $(seq 150); do
		kill -USR1 "$pid" 2>/dev/null || return 0
		sleep 0.2
	done
}

# is_rc WANT DESC: checks $RC, showing spool's stderr if it differs.
is_rc() {
	is "$RC" "$1" "$2" || show_run
}

# The summary line spool locks prints at the end, and the header of the
# lock report (counts may have thousands separators, which these helpers
# remove):
#   spool: N lock events, T thread events, M lost, trace in DIR/
# N counts the locks' events, T the threads' (create, start, join, exit:
# KIND_LOCK records too); N + T is what babeltrace2 prints as spool:lock.
SUMMARY_RE='^spool: ([0-9,]+) lock events, ([0-9,]+) thread events, ([0-9,]+) lost, trace in (.*)/$'
# They read run.err, or $SUMMARY_FILE when set.
summary_line() { grep -E "$SUMMARY_RE" "${SUMMARY_FILE:-run.err}" | tail -n 1; }
summary_events() { summary_line | sed -E "s|$SUMMARY_RE|\\1|" | tr -d ,; }
summary_thread_events() { summary_line | sed -E "s|$SUMMARY_RE|\\2|" | tr -d ,; }
summary_lost() { summary_line | sed -E "s|$SUMMARY_RE|\\3|" | tr -d ,; }
summary_dir() { summary_line | sed -E "s|$SUMMARY_RE|\\4|"; }

# trace_summary DIR KEY: a value of the run summary side file
# (DIR/.spool/summary, key=value lines: events, lock_events, lost_ring, ...).
trace_summary() {
	sed -n "s/^$2=//p" "$1/.spool/summary" 2>/dev/null | head -n 1
}

# --- the JSON lock report --------------------------------------------------

# report_json [ARGS...]: `spool report --locks --json ARGS` into report.json;
# sets $RC like spool_run (stderr in run.err).
report_json() {
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" report --locks --json "$@" \
		</dev/null >report.json 2>run.err
	RC=$?
	ERR="$(cat run.err)"
	OUT="$(cat report.json)"
	check_sanitizer run.err "spool report --locks --json $*"
}

# json FILE PYEXPR: evaluate a python3 expression over the parsed JSON `d`
# and print the result (ints as ints, lists joined by newlines). Prints
# nothing and fails when the file is not JSON or the expression fails.
json() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        d = json.load(f)
    v = eval(sys.argv[2], {"d": d, "sum": sum, "len": len, "any": any, "all": all,
                           "int": int, "str": str, "sorted": sorted})
except Exception as e:
    print("json: %s" % e, file=sys.stderr)
    sys.exit(1)
if isinstance(v, bool):
    print(int(v))
elif isinstance(v, list):
    print("\n".join(str(x) for x in v))
else:
    print(v)
EOF
}

# Where things are in the JSON lock report (doc/report-locks.md): dotted
# paths inside one lock object, and the key of the locks array.
J_LOCKS=locks
J_NAME=name
F_ACQ=write.acquisitions
F_CONTENDED=write.contended
F_HOLD_NS=write.hold.total_ns
F_WAIT_NS=write.wait.total_ns
F_TRY_OK=write.try_acquisitions
F_TRY_FAIL=write.try_failures
F_TIMEOUTS=write.timeouts
F_RD_ACQ=read.acquisitions
F_POSTS=posts
F_COND_SIGNALS=cond.signals
F_COND_WAITS=cond.waits
F_COND_WAKEUPS=cond.wakeups
F_BARRIER_WAITS=barrier.waits
F_BARRIER_SERIAL=barrier.serial
# The trace totals (schema spool-locks/1: d["trace"]["lost"], ...).
J_TOTALS=trace

# json_true FILE PYEXPR: succeeds when the expression is true.
json_true() {
	[ "$(json "$1" "bool($2)")" = 1 ]
}

# lock_stat FILE NAME FIELD: FIELD of the lock named NAME (the program's
# symbol for it, e.g. shared_lock) in a JSON lock report, summed over the
# processes that have a lock of that name (fork children share the names).
# NAME '*' sums over every lock that has the field. Empty (and a message on
# stderr) when no such lock or field exists.
lock_stat() {
	python3 - "$@" "$J_LOCKS" "$J_NAME" <<'EOF'
import json, sys
path, name, field, jl, jn = sys.argv[1:6]
try:
    with open(path) as f:
        d = json.load(f)
except Exception as e:
    print("lock_stat: %s: %s" % (path, e), file=sys.stderr)
    sys.exit(1)
all_locks = d.get(jl, [])
locks = [l for l in all_locks if name == "*" or l.get(jn) == name]
if not locks:
    print("lock_stat: no lock named %s (have: %s)" %
          (name, ", ".join(str(l.get(jn)) for l in all_locks)), file=sys.stderr)
    sys.exit(1)
def get(l, f):
    v = l
    for k in f.split("."):
        v = v[k]
    return v
try:
    if name == "*":
        vals = []
        for l in locks:
            try:
                vals.append(get(l, field))
            except (KeyError, TypeError):
                pass
        if not vals:
            raise KeyError(field)
        print(sum(vals))
    else:
        print(sum(get(l, field) for l in locks))
except (KeyError, TypeError) as e:
    print("lock_stat: %s has no field %s: %s" % (name, field, locks[0]), file=sys.stderr)
    sys.exit(1)
EOF
}

# add N...: the sum of integers; empty when one of them is not an integer (a
# field missing from the report), so that the check using it fails cleanly.
add() {
	local s=0 x
	for x in "$@"; do
		if ! [[ "$x" =~ ^-?[0-9]+$ ]]; then
			echo
			return
		fi
		s=$((s + x))
	done
	echo "$s"
}

# --- babeltrace2 -----------------------------------------------------------

# bt_count DIR [EVENT]: number of records babeltrace2 prints for the trace (of
# kind EVENT, e.g. spool:lock, when given: its full class and its short ones,
# spool:lock_op; format 2, doc/trace-format.md); the site definitions
# (spool:site) are not records. Empty if babeltrace2 fails.
bt_count() {
	local n
	if ! babeltrace2 "$1" >bt.out 2>bt.err; then
		return 1
	fi
	if [ $# -gt 1 ]; then
		n=$(grep -cE " $2(_[a-z]+)?: " bt.out)
	else
		n=$(grep -vc ' spool:site: ' bt.out)
	fi
	echo "$n"
}

# --- trace surgery ---------------------------------------------------------

# packet_offsets FILE: byte offsets of the packets in a stream file (walks
# the packet headers: content_size in bits at offset 48, see
# doc/trace-format.md).
packet_offsets() {
	python3 - "$1" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
off = 0
while off + 88 <= len(data):
    magic, = struct.unpack_from("<I", data, off)
    size, = struct.unpack_from("<Q", data, off + 48)
    if magic != 0xC1FC1FC1 or size == 0 or size % 8:
        break
    print(off)
    off += size // 8
EOF
}

# largest_stream DIR: the stream file with the most bytes.
largest_stream() {
	ls -S "$1"/stream_* 2>/dev/null | head -n 1
}

# poke FILE OFFSET HEXBYTES: overwrite bytes in place.
poke() {
	python3 - "$@" <<'EOF'
import sys
path, off, hexb = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3])
with open(path, "r+b") as f:
    f.seek(off)
    f.write(hexb)
EOF
}

# tail_ok WHOLE PART: PART is a non-empty proper suffix of WHOLE (a replay
# from a snapshot prints the recording's tail); suffix_ok: or all of it
tail_ok() {
	[ -s "$2" ] && [ "$(wc -c <"$2")" -lt "$(wc -c <"$1")" ] &&
		cmp -s <(tail -c "$(wc -c <"$2")" "$1") "$2"
}
suffix_ok() {
	[ -s "$2" ] && [ "$(wc -c <"$2")" -le "$(wc -c <"$1")" ] &&
		cmp -s <(tail -c "$(wc -c <"$2")" "$1") "$2"
}

# --- programs that make their own children and threads ---------------------
# (289, 306, 307, 329: process children made without fork; 279, 280, 314:
# threads made with the program's own clone)

# c_children_head: the C a process-children test program starts with (on
# stdout): the headers for clone, clone3, namespaces and waiting, and
# step(), the function spool probe counts (func:step), that the program
# calls once per child and each child 3 times.
c_children_head() {
	cat <<'C'
#define _GNU_SOURCE
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void step(int *n)
{
	__asm__ volatile("" ::: "memory");
	++*n;
}
C
}

# c_pidns_prog: the C source of the pid-namespace test program (329 traces
# it, 359 records and replays it): ./ns MODE N makes N children, each pid 1
# of a new pid namespace, with a thread and a grandchild, and prints
# "MODE children N bad 0 parent steps N" when all went as expected.
c_pidns_prog() {
	c_children_head
	cat <<'C'
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;

static void *thread_work(void *a)
{
	int *c = a;

	step(c);
	step(c);
	pthread_mutex_lock(&cm);
	pthread_mutex_unlock(&cm);
	return NULL;
}

/* in the namespace: 3 step calls, a thread with 2 and a lock, a
 * grandchild with 1; exit 0 when all went as expected */
static int child_work(void)
{
	int c = 0, tc = 0, st;
	pthread_t th;
	pid_t g;

	if (getpid() != 1)
		return 3;
	for (int j = 0; j < 3; j++)
		step(&c);
	if (pthread_create(&th, NULL, thread_work, &tc) || pthread_join(th, NULL))
		return 4;
	g = fork();
	if (g == 0) {
		int gc = 0;

		step(&gc);
		_exit(getpid() > 1 && gc == 1 ? 0 : 1);
	}
	if (g < 0 || waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
		return 5;
	return c == 3 && tc == 2 ? 0 : 1;
}

/* in a namespace with a /proc of its own: 3 step calls, then a grandchild
 * with 1 once the namespace's own /proc is mounted */
static int ownproc_work(void)
{
	int c = 0, st;
	pid_t g;

	for (int j = 0; j < 3; j++)
		step(&c);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", 0, NULL))
		return 6;
	g = fork();
	if (g == 0) {
		int gc = 0;

		step(&gc);
		_exit(gc == 1 ? 0 : 1);
	}
	if (g < 0 || waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
		return 5;
	return c == 3 ? 0 : 1;
}

static pid_t by_clone3(uint64_t more)
{
	struct clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWPID | more;
	ca.exit_signal = SIGCHLD;
	return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
}

/* ns clone3 N | ns unshare | ns ownproc: N children by clone3, or one
 * forked after unshare, each the first process of a pid namespace of its
 * own; or one by clone3 in a mount namespace too, with its own /proc */
int main(int argc, char **argv)
{
	int un = !strcmp(argv[1], "unshare"), own = !strcmp(argv[1], "ownproc");
	int n = un || own ? 1 : atoi(argv[2]), bad = 0, st, steps = 0;

	if (un && unshare(CLONE_NEWPID)) {
		perror("unshare");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pid_t p = un ? fork() : by_clone3(own ? CLONE_NEWNS : 0);

		if (p == 0)
			_exit(own ? ownproc_work() : child_work());
		if (p < 0) {
			perror(argv[1]);
			return 2;
		}
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		step(&steps);
	}
	printf("%s children %d bad %d parent steps %d\n", argv[1], n, bad, steps);
	return 0;
}
C
}

# fn_of NAME: the python expression (for json) of function NAME's entry in
# a `spool report --functions --json`.
fn_of() { echo "[f for f in d[\"functions\"] if f[\"name\"] == \"$1\"][0]"; }

# info_streams TRACE: "P N" from spool info: N streams, P of them a
# process's first thread (pid == tid).
info_streams() {
	"$SPOOL" info "$1" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ && NF >= 6 {n++; if ($2 == $3) p++} END {print p + 0, n + 0}'
}

# locks_children NATIVE LOCK N CMD...: spool locks -o l.trace -- CMD, three
# tests: the program's output is NATIVE and the status 0, the run says 0
# lost, and the locks whose name starts with LOCK (one a process: each
# child's own) have N acquisitions in all.
locks_children() {
	local native="$1" lock="$2" n="$3"

	shift 3
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" locks -o l.trace -- "$@" </dev/null >l.out 2>l.err
	RC=$?
	check_sanitizer l.err "spool locks"
	is "$RC:$(cat l.out)" "0:$native" "  spool locks: the program's output, exit 0"
	like "$(cat l.err)" "[0-9,]+ lock events, [0-9,]+ thread events, 0 lost" "  spool locks: 0 lost"
	"$SPOOL" report --locks --json l.trace >l.json 2>l2.err
	check_sanitizer l2.err "spool report --locks"
	is "$(json l.json "sum(l[\"write\"][\"acquisitions\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"].startswith(\"$lock\"))")" \
		"$n" "  each child's own lock: $n acquisitions in all"
}

# thousands N: N as spool prints a count (1,800).
thousands() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }

# lost_total FILE: the N of "... is incomplete: N events lost" in FILE.
lost_total() { sed -n 's/.*is incomplete: \([0-9]*\) events lost.*/\1/p' "$1" | head -n 1; }

# clone_locks_native ARGS...: tests/progs/clone_locks ARGS without spool,
# one test (its output says every thread's sums add up, status 0); sets
# CL_PROG, native (its output on one line) and made (the clone threads it
# says it made, on stderr).
CL_PROG="$PROGS/clone_locks"
CL_CALLS=300 # CL_CALLS in the program: lock calls a thread makes
clone_locks_native() {
	local rc

	native="$("$CL_PROG" "$@" 2>native.err)"
	rc=$?
	# shellcheck disable=SC2086,SC2116 # its lines joined by single spaces
	native=$(echo $native)
	is "$rc $native" "0 counter ok sums ok" "natively: every thread's locking adds up"
	made=$(sed -n 's/.* \([0-9]*\) clone threads$/\1/p' native.err)
}

# clone_locks_lost TRACE TOT ROUNDS: what spool says after a run of
# clone_locks whose clone threads' events were all counted lost (TOT of
# them): spool info and spool report --locks --json say TOT lost, and the
# pthreads' cl_mutex has its ROUNDS * CL_CALLS acquisitions, none of the
# clone threads'. Three tests; leaves the report in l.json.
clone_locks_lost() {
	spool_run info "$1"
	like "$OUT" "^lost: $2 events" "spool info: lost: $2 events"
	"$SPOOL" report --locks --json "$1" >l.json 2>l2.err
	check_sanitizer l2.err "spool report --locks"
	is "$(json l.json "d[\"$J_TOTALS\"][\"lost\"]")" "$2" "spool report --locks --json: lost $2"
	is "$(json l.json "sum(l[\"write\"][\"acquisitions\"] for l in d[\"$J_LOCKS\"] if l[\"$J_NAME\"] == \"cl_mutex\")")" \
		$(($3 * CL_CALLS)) "  cl_mutex: the pthreads' $(($3 * CL_CALLS)) acquisitions, none of the clone threads'"
}

# rr_cancel_hows MODE: every way of $HOWS (rr_cancel's cancellation points,
# $ROUNDS rounds) recorded in MODE and replayed 3 times (tests/integ/129
# serial, 400 sync; $UNSEEN: the warning a recorded cancellation must not
# give). Two checks a way, one more for sync's cond.
rr_cancel_hows() {
	local how want n
	for how in $HOWS; do
		spool_run record -q --mode "$1" -- "$PROGS/rr_cancel" "$how" "$ROUNDS"
		cp run.out rec.out
		cp run.err rec.err
		want="cancelled, cleanups 1, mutex held in cleanup -1"
		case "$how" in
		cond | timedcond | asyncoff) want="cancelled, cleanups 1, mutex held in cleanup 1" ;;
		esac
		n=$(grep -c "^round [0-9]*: $want, shared counted$" rec.out)
		if [ "$RC" = 0 ] && [ "$n" = "$ROUNDS" ] && grep -q '^done$' rec.out; then
			pass "$1 $how: the recording ends, every round's victim was cancelled"
		else
			fail "$1 $how: the recording ends, every round's victim was cancelled"
			show_run
			fail "$1 $how: 3 replays print the recorded output and exit 0"
			continue
		fi
		replays_same 3 0 rec.out -q spool.trace
		is "$SAME" 3 "$1 $how: 3 replays print the recorded output and exit 0"
		if [ "$1" = sync ] && [ "$how" = cond ]; then
			unlike "$(cat rec.err)" "$UNSEEN" "sync: a recorded cancellation is not warned about"
		fi
	done
}
