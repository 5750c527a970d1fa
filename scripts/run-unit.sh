#!/bin/bash
# SPDX-License-Identifier: MIT
# run-unit.sh BUILD_DIR [ASAN_BUILD_DIR] - runs every cmocka unit test binary
# (BUILD_DIR/tests/unit/test_*, then the AddressSanitizer ones), prints one
# line per binary, and closes with exactly "N passed, N failed" on its own
# line. Exits non-zero if any failed, or if there was nothing to run (a
# build that produced no tests is a broken build, not a passing one).
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: run-unit.sh BUILD_DIR [ASAN_BUILD_DIR]" >&2
	exit 2
fi

passed=0
failed=0
failures=()
log_dir=$(mktemp -d /tmp/spool-unit.XXXXXX)
trap 'rm -rf "$log_dir"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

for dir in "$@"; do
	shopt -s nullglob
	bins=("$dir"/tests/unit/test_*)
	shopt -u nullglob
	if [ ${#bins[@]} -eq 0 ]; then
		echo "run-unit: no unit tests in $dir/tests/unit" >&2
		failed=$((failed + 1))
		failures+=("$dir/tests/unit (none built)")
		continue
	fi
	for t in "${bins[@]}"; do
		if [ ! -x "$t" ] || [ ! -f "$t" ]; then
			continue
		fi
		case "$t" in *.d | *.o) continue ;; esac
		log="$log_dir/$(basename "$dir")-$(basename "$t").log"
		if timeout -k 10 300 "$t" >"$log" 2>&1; then
			passed=$((passed + 1))
			echo "PASS $t"
		else
			rc=$?
			failed=$((failed + 1))
			failures+=("$t")
			echo "FAIL $t (exit $rc)"
			sed 's/^/    /' "$log" | tail -n 60
		fi
	done
done

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
