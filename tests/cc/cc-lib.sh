# SPDX-License-Identifier: MIT
# cc-lib.sh - helpers of the spool cc / spool decode integration tests
# (tests/integ/75-*.t, 76-*.t), sourced after tests/integ/lib.sh: how a
# decoded trace is compared with another, and the statistics line decode
# --stats prints. Kept here so a change of decode's output is one edit.

# cc_require_tools: CLANG and CCOPT set, the AddressSanitizer pass pointed at
# the normal build's optimizer (it has none of its own); the test file is
# skipped, said as TAP, when clang-14 or spool-ccopt is missing.
cc_require_tools() {
	CLANG="${SPOOL_CLANG:-clang-14}"
	if ! command -v "$CLANG" >/dev/null; then
		echo "1..0 # SKIP $CLANG is not installed (scripts/deps.sh)"
		exit 0
	fi
	if [ ! -x "$SPOOL_BUILD/spool-ccopt" ] && [ -z "${SPOOL_CCOPT:-}" ]; then
		export SPOOL_CCOPT="$(cd "$PROGS/../.." && pwd)/spool-ccopt"
	fi
	CCOPT="${SPOOL_CCOPT:-$SPOOL_BUILD/spool-ccopt}"
	if [ ! -x "$CCOPT" ]; then
		echo "1..0 # SKIP spool-ccopt is not built"
		exit 0
	fi
}

# cc_events FILE: the decoded events (text output: TIME TID ID ARG...) without
# their times, each thread's events together and in their order, threads
# sorted by their first event and named by their order: two runs of the same
# deterministic program compare equal whatever the scheduling.
cc_events() {
	awk '{ tid = $2; $1 = ""; $2 = ""; if (!(tid in first)) first[tid] = $0;
	       print first[tid] "\t" $0 }' "$1" | sort -s -t "$(printf '\t')" -k1,1 | cut -f2
}

# cc_increasing FILE: times (NS.SUB) strictly increase.
cc_increasing() {
	awk '{ split($1, a, "."); ns = a[1] + 0; sub_ = a[2] + 0;
	       if (NR > 1 && (ns < pns || (ns == pns && sub_ <= psub))) { bad = 1 }
	       pns = ns; psub = sub_ } END { exit bad }' "$1"
}

# cc_stat FILE records|bytes|events: a figure of decode --stats' line.
cc_stat() {
	local f
	case "$2" in
	records) f=1 ;;
	bytes) f=2 ;;
	events) f=3 ;;
	esac
	sed -nE "s/^spool: decode: ([0-9]+) records, ([0-9]+) bytes, ([0-9]+) events.*$/\\$f/p" \
		"$1" | tail -n 1
}

# cc_same_events PLAIN CC DESC: the decoded streams are equal event for event.
cc_same_events() {
	cc_events "$1" >cc_a.ev
	cc_events "$2" >cc_b.ev
	if cmp -s cc_a.ev cc_b.ev; then
		pass "$3"
	else
		fail "$3"
		diag "$(diff cc_a.ev cc_b.ev | head -n 20)"
	fi
}
