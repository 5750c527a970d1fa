#!/bin/bash
# SPDX-License-Identifier: MIT
# run-integ.sh BUILD_DIR ASAN_BUILD_DIR - runs the TAP integration tests
# (tests/integ/*.t but the slow ones tests/integ/SLOW names, and the quick
# part of the tests on real programs, tests/real/quick/*.t, under prove; with
# SPOOL_INTEG=slow only the slow ones) twice at the same time: against the normal
# build and against the AddressSanitizer + UBSan build (with the normal
# build's test programs; the ASan pass of the tests tests/integ/ASAN-LATER
# names is left to SPOOL_INTEG=slow). Most of a test's time is spent waiting on the
# programs it runs, the collector and their pipes, not on the CPU, so the two
# passes side by side take little more than the slower of them: this keeps
# `make check` under its 10 minutes on a 2-CPU machine.
#
# Each pass writes its own log; both are printed when both have ended (the
# ASan one second), and the script fails if either pass failed.
set -uo pipefail

if [ $# -ne 2 ]; then
	echo "usage: run-integ.sh BUILD_DIR ASAN_BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd) || exit 2
asan=$(cd "$2" && pwd) || exit 2
jobs="${SPOOL_TEST_JOBS:-2}"
log_dir=$(mktemp -d /tmp/spool-integ.XXXXXX)
trap 'rm -rf "$log_dir"' EXIT

# SPOOL_INTEG=slow runs what make check leaves out (make check-slow): the
# tests tests/integ/SLOW names in both passes, and the ASan pass of those
# tests/integ/ASAN-LATER names. By default (make check) every other test and
# the quick real-program tests run in both passes, but the ASan pass leaves
# out those ASAN-LATER names.
slow=$(sed -n 's/^\([0-9][^ ]*\.t\).*/tests\/integ\/\1/p' tests/integ/SLOW)
later=$(sed -n 's/^\(tests\/[^ ]*\.t\).*/\1/p' tests/integ/ASAN-LATER)
if [ "${SPOOL_INTEG:-quick}" = slow ]; then
	tests=($slow)
	asan_tests=($slow $later)
else
	tests=()
	asan_tests=()
	for t in tests/integ/*.t tests/real/quick/*.t; do
		grep -qxF "$t" <<<"$slow" && continue
		tests+=("$t")
		grep -qxF "$t" <<<"$later" || asan_tests+=("$t")
	done
fi

# Each test's output is also kept apart (scripts/tee-test.sh), per pass, so
# that what a failed file printed in the run that failed can be shown again.
mkdir -p "$log_dir/normal.t" "$log_dir/asan.t"
tee_test="$(pwd)/scripts/tee-test.sh"
SPOOL_TEST_LOGS="$log_dir/normal.t" SPOOL_BUILD="$build" \
	prove -j"$jobs" --timer --exec "$tee_test" "${tests[@]}" >"$log_dir/normal" 2>&1 &
normal_pid=$!
SPOOL_TEST_LOGS="$log_dir/asan.t" SPOOL_BUILD="$asan" SPOOL_PROGS="$build/tests/progs" SPOOL_ASAN=1 \
	prove -j"$jobs" --timer --exec "$tee_test" "${asan_tests[@]}" >"$log_dir/asan" 2>&1 &
asan_pid=$!

wait "$normal_pid"
normal_rc=$?
wait "$asan_pid"
asan_rc=$?

echo "== integration tests against $build"
cat "$log_dir/normal"
echo "== integration tests against $asan (AddressSanitizer + UBSan)"
cat "$log_dir/asan"
# CI shows only the last twenty lines or so of its log: what failed in each
# pass comes again here, with the failures and diagnostics the failed file
# printed in that run (8 lines at most), then the verdict of one more run of
# it (which changes no verdict: it tells a flaky test from a broken one).
failed_files() {
	sed -n '/^Test Summary Report/,/^Files=/p' "$log_dir/$1" |
		sed -n 's/^\(tests\/[^ ]*\.t\) .*\(Wstat: [1-9]\|Failed: [1-9]\).*/\1/p'
}
for pass in normal asan; do
	echo "== $pass pass: $(grep -E '^(Result|Files=)' "$log_dir/$pass" | cut -c1-40 | tr '\n' ' ')" \
		"$(failed_files $pass | tr '\n' ' ')"
done
for pass in normal asan; do
	for t in $(failed_files $pass); do
		echo "== $pass pass, $t:"
		kept="$log_dir/$pass.t/$(tr / _ <<<"$t")"
		[ -s "$kept" ] || echo "(nothing kept of its output: $kept)"
		grep -E '^(not ok|#)' "$kept" 2>/dev/null |
			grep -Ev '^#   (at|Failed test)' | cut -c1-160 | tail -8
		if [ $pass = normal ]; then
			SPOOL_BUILD="$build" prove "$t" 2>&1
		else
			SPOOL_BUILD="$asan" SPOOL_PROGS="$build/tests/progs" SPOOL_ASAN=1 prove "$t" 2>&1
		fi | sed -n 's/^Result: /== run again: /p'
	done
done
echo "== integration: normal pass $([ $normal_rc -eq 0 ] && echo passed || echo FAILED)," \
	"ASan pass $([ $asan_rc -eq 0 ] && echo passed || echo FAILED)"
[ $normal_rc -eq 0 ] && [ $asan_rc -eq 0 ]
