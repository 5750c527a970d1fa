# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # variables used by the sourcing tests
# lib.sh - helpers for the tests on real programs from Debian (tests/real/*.t
# and tests/real/quick/*.t), on top of tests/integ/lib.sh (TAP, spool_run,
# the summary and JSON helpers, the temporary directory).
#
# The programs here were not written for spool: Debian's sqlite3, pigz,
# python3, git, nginx, x264 ... as a user has them. A test compares what the
# program does under spool with what it does alone (output, exit status,
# files), and checks what spool says about it. tests/real/quick/ runs in
# `make check` (programs scripts/deps.sh installs, a few seconds in all);
# the rest runs in `make check-real` (scripts/deps.sh --real installs them).

# The repository, found before integ/lib.sh leaves for the temporary
# directory (it computes its own REPO from $0, which is one level off for
# tests/real/quick/).
_real_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../integ/lib.sh
. "$_real_repo/tests/integ/lib.sh"
REPO="$_real_repo"
unset _real_repo

# Debian's interpreter, not whatever `python3` is first in PATH (a pyenv
# shim is a shell script that forks, and spool record refuses a program
# that forks).
REAL_PY=/usr/bin/python3

# need_progs PROG...: skips the whole file when one of the programs is not
# installed (named in the skip reason: prove shows it as skipped, not as a
# pass). make check-real installs them first (scripts/deps.sh --real).
need_progs() {
	local p missing=()
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "1..0 # SKIP not installed: ${missing[*]} (scripts/deps.sh --real installs them)"
		exit 0
	fi
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	"$REAL_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wall CMD...: runs CMD, leaves its status in $RC and its wall-clock time
# in seconds in $WALL. Figures only: timing is never asserted (DESIGN.md),
# the tests print them as diagnostics so a run's log has them.
wall() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@"
	RC=$?
	t1=$(date +%s.%N)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

# tree_state DIR: a fingerprint of everything under DIR (paths, types,
# modes, sizes, contents), to show a directory is exactly as it was.
tree_state() {
	(cd "$1" && find . -printf '%p %y %m %s\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# info_lost DIR: the loss count `spool info DIR` prints ("lost: N events");
# empty when it prints none.
info_lost() {
	"$SPOOL" info "$1" 2>/dev/null | sed -n 's/^lost: \([0-9]*\) events.*/\1/p' | head -n 1
}

# --- the record/replay corpus (tests/real/82-95, quick/80-89) -------------

# rr_corpus NAME MODE [OPTIONS] -- CMD...: records CMD in MODE (serial or
# sync) and replays that one recording N times (default 3), as a user would
# compare them: each replay's exit status, stdout, stderr (without spool's
# own "spool:" lines) and the files it leaves in its working directory must
# be the recording's. Prints two TAP checks:
#   ok - NAME MODE: recorded (exit status W)
#   ok - NAME MODE: N replays of N identical to the recording
# and a verdict for the corpus table (doc/record.md) as a diagnostic and,
# when $SPOOL_CORPUS_TABLE names a file, as a line appended to it:
#   NAME|MODE|identical|...  or  NAME|MODE|diverged|REASON  or
#   NAME|MODE|refused|REASON (record or replay refused it; REASON is
#   spool's first error line).
# The program runs in a directory of its own (a copy of --dir DIR, else
# empty), put back as it was before every run, so files written are
# compared: a replay writes them again. Traces live outside it.
# Options:
#   --dir DIR          what the program's working directory holds at the start
#   --stdin FILE       its stdin (default /dev/null)
#   --rc N             the exit status the recording must have (default 0)
#   --replays N        how many replays of the one recording (default 3)
#   --client FUNC      a server: FUNC runs while the recording runs, with the
#                      pid of the background `spool record` as $1 (prog_of
#                      finds the program under it); it drives the server and
#                      stops it. Replays run with no client at all.
#   --may-diverge WHY  a mode that cannot replay this program exactly (data
#                      races in sync mode): the replay check passes when
#                      every replay is identical, stops with spool's
#                      divergence report (exit status 3) or is refused with
#                      the reason (by spool record: exit status 5, then no
#                      replay) - never a silent difference; WHY goes into
#                      the check's name
#   --todo REASON      the replay check is TAP TODO: a known failure that
#                      another fix addresses (prove lists it and says when
#                      it starts passing)
#   --todo-record REASON  the same for the record check
#   --rec-opts "OPTS"  more `spool record` options (split on spaces)
#   --wrap "CMD"       run spool under CMD (split on spaces) for the record
#                      and every replay, e.g. "setarch -R" (no randomization)
#   --replay-argv      give each replay the command line (`spool replay TRACE
#                      -- CMD...`, CMD[0] resolved to its path) instead of the
#                      recorded one
# Sets CORPUS_VERDICT (identical, diverged or refused) and CORPUS_REASON.
rr_corpus() {
	local name="$1" mode="$2" dir="" stdin=/dev/null want_rc=0 n=3 client="" todo=""
	local todo_rec="" rec_opts="" d w tr pid rc i v why same=0 first_bad="" may="" loud=0
	local verdicts=() wrap="" replay_argv=0 rargv=()
	shift 2
	while [ $# -gt 0 ]; do
		case "$1" in
		--dir) dir="$2"; shift 2 ;;
		--stdin) stdin="$2"; shift 2 ;;
		--rc) want_rc="$2"; shift 2 ;;
		--replays) n="$2"; shift 2 ;;
		--client) client="$2"; shift 2 ;;
		--todo) todo="$2"; shift 2 ;;
		--may-diverge) may="$2"; shift 2 ;;
		--todo-record) todo_rec="$2"; shift 2 ;;
		--rec-opts) rec_opts="$2"; shift 2 ;;
		--wrap) wrap="$2"; shift 2 ;;
		--replay-argv) replay_argv=1; shift ;;
		--) shift; break ;;
		*) echo "rr_corpus: unknown option $1" >&2; return 2 ;;
		esac
	done
	d="$T_DIR/corpus/$name.$mode"
	w="$T_DIR/corpus/$name.$mode.wd"
	tr="$d/rec.trace"
	rm -rf "$d" "$w" && mkdir -p "$d"
	# _rr_corpus_reset: the working directory as it was at the start
	_rr_corpus_reset() {
		rm -rf "$w"
		if [ -n "$dir" ]; then cp -a "$dir" "$w"; else mkdir -p "$w"; fi
	}
	# _rr_corpus_run OUT ERR spool ARGS...: in the working directory;
	# leaves the status in $rc
	_rr_corpus_run() {
		local o="$1" e="$2"
		shift 2
		# shellcheck disable=SC2086 # wrap is a command and its options
		(cd "$w" && exec timeout -k 10 "$T_TIMEOUT" $wrap "$SPOOL" "$@") <"$stdin" >"$o" 2>"$e" &
		pid=$!
		if [ -n "$client" ] && [ "$1" = record ]; then
			"$client" "$pid" "$w" >"$d/client.log" 2>&1
		fi
		wait "$pid"
		rc=$?
		check_sanitizer "$e" "spool $1 ($name $mode)"
	}
	# _rr_corpus_state OUT ERR: what a run shows (program's stderr without
	# spool's lines; the files in its directory)
	_rr_corpus_state() {
		grep -av '^spool\(-agent\)\?: \|^  \(recorded\|replay\): ' "$2" >"$2.prog"
		tree_state "$w" >"$2.files"
	}
	_rr_corpus_reset
	# shellcheck disable=SC2086 # rec_opts is a list of options
	_rr_corpus_run "$d/rec.out" "$d/rec.err" record --mode "$mode" -q $rec_opts -o "$tr" -- "$@"
	_rr_corpus_state "$d/rec.out" "$d/rec.err"
	diag "$name $mode: record exit status $rc"
	if [ "$rc" != "$want_rc" ] || grep -q '^spool: error: ' "$d/rec.err"; then
		why=$(grep -m 1 '^spool: \(error\|warning\): ' "$d/rec.err" | sed 's/^spool: //')
		CORPUS_VERDICT=refused
		CORPUS_REASON="record: exit status $rc${why:+: $why}"
		if [ -n "$may" ] && [ "$rc" = 5 ] && [ -n "$why" ]; then
			# spool record's EXIT_REFUSED: a program the mode cannot replay,
			# said at record time (doc/record.md) - what --may-diverge allows
			CORPUS_REASON="at record (exit status 5): $why"
			pass "$name $mode: refused at record time with the reason ($may)"
			skip 1 "$name $mode: not replayed (refused at record time)"
			_rr_corpus_verdict
			return 0
		fi
		if [ -n "$todo_rec" ]; then
			todo_ok "$todo_rec" "$name $mode: recorded (exit status $want_rc)" false
		else
			fail "$name $mode: recorded (exit status $want_rc)"
		fi
		diag "record said:" "$(tail -n 20 "$d/rec.err")"
		[ -s "$d/client.log" ] && diag "client:" "$(tail -n 10 "$d/client.log")"
		skip 1 "$name $mode: not recorded"
		_rr_corpus_verdict
		return 0
	fi
	if [ -n "$todo_rec" ]; then
		todo_ok "$todo_rec" "$name $mode: recorded (exit status $want_rc)" true
	else
		pass "$name $mode: recorded (exit status $want_rc)"
	fi
	grep -q '^spool: warning: ' "$d/rec.err" &&
		diag "record warned:" "$(grep '^spool: warning: ' "$d/rec.err")"
	for ((i = 1; i <= n; i++)); do
		_rr_corpus_reset
		rargv=()
		[ "$replay_argv" = 1 ] && rargv=(-- "$(command -v "$1")" "${@:2}")
		_rr_corpus_run "$d/rep$i.out" "$d/rep$i.err" replay -q -o "$d/rep.trace" "$tr" "${rargv[@]}"
		_rr_corpus_state "$d/rep$i.out" "$d/rep$i.err"
		v=""
		# (not anchored: a program's last line may lack its newline, x264's
		# progress ends in \r)
		if grep -aq 'spool: error: ' "$d/rep$i.err"; then
			why=$(grep -ao -m 1 'spool: error: .*' "$d/rep$i.err" | head -n 1 | sed 's/^spool: error: //')
			case "$why" in
			*refus* | *"cannot replay"* | *"cannot be replayed"*) v="refused: $why" ;;
			*) v="diverged: $why" ;;
			esac
		elif [ "$rc" != "$want_rc" ]; then
			v="diverged: exit status $rc, recorded $want_rc"
		elif ! cmp -s "$d/rec.out" "$d/rep$i.out"; then
			v="diverged: another stdout"
		elif ! cmp -s "$d/rec.err.prog" "$d/rep$i.err.prog"; then
			v="diverged: another stderr"
		elif ! cmp -s "$d/rec.err.files" "$d/rep$i.err.files"; then
			v="diverged: other files written"
		fi
		verdicts+=("${v:-identical}")
		[ -z "$v" ] || [ -n "$first_bad" ] || first_bad="$v"
		if [ -z "$v" ]; then
			same=$((same + 1))
		else
			# (a process tree's: "process 1 (recorded pid N): replay
			# diverged ...", apache2's worker, tests/real/145)
			if { [ "$rc" = 3 ] && [[ "$v" == "diverged: replay "* ||
				"$v" == "diverged: process "*"): replay diverged "* ]]; } ||
				[[ "$v" == "refused: "* ]]; then
				loud=$((loud + 1))
			fi
			diag "$name $mode: replay $i: $v (exit status $rc)"
			diag "$(grep -a '^spool\|^  ' "$d/rep$i.err" | head -n 8)"
			if [[ "$v" == *stdout* ]]; then diag "$(diff "$d/rec.out" "$d/rep$i.out" | head -n 10)"; fi
			if [[ "$v" == *stderr* ]]; then diag "$(diff "$d/rec.err.prog" "$d/rep$i.err.prog" | head -n 10)"; fi
			if [[ "$v" == *files* ]]; then diag "$(diff "$d/rec.err.files" "$d/rep$i.err.files" | head -n 10)"; fi
		fi
	done
	if [ "$same" = "$n" ]; then
		CORPUS_VERDICT=identical
		CORPUS_REASON="$n replays of $n"
	else
		CORPUS_VERDICT="${first_bad%%:*}"
		CORPUS_REASON="$((n - same)) of $n replays: ${first_bad#*: }"
	fi
	# Verdicts that do not vary: the same recording, the same verdict.
	if [ "$(printf '%s\n' "${verdicts[@]}" | sed 's/[0-9a-fx]\{12,\}//g; s/[0-9]* ms/N ms/g' | sort -u | wc -l)" != 1 ]; then
		CORPUS_REASON="$CORPUS_REASON; the verdict varies from replay to replay"
		diag "$name $mode: the verdicts vary:" "$(printf '%s\n' "${verdicts[@]}" | sort | uniq -c)"
	fi
	if [ -n "$todo" ]; then
		todo_ok "$todo" "$name $mode: $n replays of $n identical to the recording" \
			test "$same" = "$n"
	elif [ -n "$may" ]; then
		if [ $((same + loud)) = "$n" ]; then
			pass "$name $mode: $n replays identical, stopped at a reported divergence or refused ($may): $same identical"
		else
			fail "$name $mode: $n replays identical, stopped at a reported divergence or refused ($may): $same identical"
		fi
	elif [ "$same" = "$n" ]; then
		pass "$name $mode: $n replays of $n identical to the recording"
	else
		fail "$name $mode: $n replays of $n identical to the recording"
	fi
	_rr_corpus_verdict
	return 0
}

# _rr_corpus_verdict: the verdict as a diagnostic and a table line
_rr_corpus_verdict() {
	diag "corpus: $name | $mode | $CORPUS_VERDICT | $CORPUS_REASON"
	if [ -n "${SPOOL_CORPUS_TABLE:-}" ]; then
		echo "$name|$mode|$CORPUS_VERDICT|$CORPUS_REASON" >>"$SPOOL_CORPUS_TABLE"
	fi
}

# wait_port PORT [SECONDS [PID]]: until something accepts connections on
# 127.0.0.1:PORT (default 30 s at most), or PID (the process that is to
# serve, or the spool running it) is gone. A service with thousands of
# probes under ASan on a loaded machine took more than 30 s to listen
# (143's spool path: haproxy ended with no connection, 1 run in 8).
wait_port() {
	"$REAL_PY" - "$1" "${2:-30}" "${3:-0}" <<'PY'
import os, socket, sys, time
end = time.time() + float(sys.argv[2])
pid = int(sys.argv[3])
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
    if pid:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            sys.exit(1)
sys.exit(1)
PY
}

# --- a service under spool (134, 143, 145) ----------------------------------------
# The test sets SVC (the service's command, an array) and SVC_SIG (the
# signal that ends it softly, its status then 0), and defines svc_up LOG
# (0 once the service serves; LOG is its stderr; SVC_PID: the process
# started, the service or spool, gone when it will never serve) and
# svc_client (asks it what the test checks, the answers on stdout).

# svc_native: the service alone, asked by svc_client (native.client, what
# every run under spool must get too), ended by SVC_SIG: its status in
# NATIVE_RC, its stdout in native.out (not the TAP stream: apache2 logs
# there), its stderr in native.err.
svc_native() {
	local pid

	"${SVC[@]}" </dev/null >native.out 2>native.err &
	pid=$!
	SVC_PID=$pid
	svc_up native.err
	svc_client >native.client 2>&1
	kill -"$SVC_SIG" "$pid"
	wait "$pid"
	NATIVE_RC=$?
}

# svc_spool ARGS...: spool ARGS -- the service, in the background; once it
# serves, svc_client (client.out), then SVC_SIG to the program (not to
# spool): spool's status in RC, run.out and run.err as spool_run leaves
# them.
svc_spool() {
	local sp pid

	timeout -k 10 "$T_TIMEOUT" "$SPOOL" "$@" -- "${SVC[@]}" </dev/null >run.out 2>run.err &
	sp=$!
	SVC_PID=$sp
	if svc_up run.err; then
		svc_client >client.out 2>&1
	else
		echo "${SVC[0]} did not start" >client.out
	fi
	pid=$(prog_of "$sp") && kill -"$SVC_SIG" "$pid"
	wait "$sp"
	RC=$?
	ERR="$(cat run.err)"
	check_sanitizer run.err "spool $1 (${SVC[0]})"
}

# svc_same: the last svc_spool exited 0 and the client got the native answers.
svc_same() { [ "$RC" = 0 ] && cmp -s client.out native.client; }
