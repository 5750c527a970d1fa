#!/bin/bash
# SPDX-License-Identifier: MIT
# 168-exit-codes.t - exit statuses as a shell user reads them, for every
# command that runs a program (locks, record, probe, path) and the replay:
# 127 only for a program that is not found, 126 for one that is not
# executable, 1 for a trace directory that cannot be made (a missing
# parent, a parent that is a file, a directory this user cannot write):
# never 127 or 126, and the program does not run. Commands that read a
# trace exit 1 when it is missing and 2 on a usage error. Each command's
# --help says the statuses it uses.
. "$(dirname "$0")/lib.sh"

run_cmds="locks record probe path"
plan 52

# args CMD: how CMD runs a program, with its trace directory option
args() {
	case $1 in
	probe) echo "probe -q -e func:main -o" ;;
	path) echo "path -q -t" ;;
	*) echo "$1 -q -o" ;;
	esac
}

echo x >notexec
chmod 644 notexec
echo x >afile
for c in $run_cmds; do
	# shellcheck disable=SC2046
	spool_run $(args "$c") t -- ./no-such-program
	is_rc 127 "spool $c of a program that does not exist exits 127"
	# shellcheck disable=SC2046
	spool_run $(args "$c") t -- ./notexec
	is_rc 126 "spool $c of a file that is not executable exits 126"
	# shellcheck disable=SC2046
	spool_run $(args "$c") no/such/dir/t -- "$PROGS/lockcount" 1 1
	is_rc 1 "spool $c with -o under a missing directory exits 1 (not 127)"
	like "$ERR" "no/such/dir/t" "  and names the trace directory"
	unlike "$OUT" "total=" "  and the program did not run"
	# shellcheck disable=SC2046
	spool_run $(args "$c") afile/t -- "$PROGS/lockcount" 1 1
	is_rc 1 "spool $c with -o under a file exits 1"
	unlike "$OUT" "total=" "  and the program did not run"
	like "$("$SPOOL" "$c" --help)" "127" "spool $c --help documents 127"
	like "$("$SPOOL" "$c" --help)" "126" "  and 126"
done

# A directory this user cannot write: EACCES is not "not executable" (126).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PROGS/lockcount" 2>/dev/null; then
	mkdir rootonly
	chmod 755 rootonly "$T_DIR"
	for c in locks record; do
		# shellcheck disable=SC2046
		timeout -k 10 "$T_TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$SPOOL" $(args "$c") rootonly/t -- "$PROGS/lockcount" 1 1 >run.out 2>run.err
		RC=$?
		ERR=$(cat run.err)
		is_rc 1 "spool $c as another user, -o in a directory it cannot write, exits 1 (not 126)"
		like "$ERR" "Permission denied" "  and says why"
	done
	chmod 700 "$T_DIR"
else
	skip 4 "needs root, setpriv and a lockcount user 65534 can run"
fi

# The replay's own trace directory.
spool_run record -q -o rec -- "$PROGS/lockcount" 1 1
is_rc 0 "a recording to replay"
spool_run replay -q -o no/such/dir/t rec
is_rc 1 "spool replay -o under a missing directory exits 1"
spool_run replay -q rec -- ./no-such-program
is_rc 127 "spool replay of a replacement program that does not exist exits 127"

# Commands that read a trace: 1 for a missing one, 2 for a usage error.
for c in report info decode "export --chrome"; do
	# shellcheck disable=SC2086
	spool_run $c no-such-trace
	is_rc 1 "spool $c of a missing trace exits 1"
	# shellcheck disable=SC2086
	spool_run $c --no-such-option
	is_rc 2 "spool $c --no-such-option exits 2"
done
spool_run replay no-such-trace
is_rc 1 "spool replay of a missing trace exits 1"
done_testing
