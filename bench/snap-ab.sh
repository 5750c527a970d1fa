#!/bin/bash
# SPDX-License-Identifier: MIT
# snap-ab.sh OLD_BUILD NEW_BUILD [ROUNDS] - the CPU a --goto restore costs
# the first thread (the agent's SPOOL_DEBUG line "restore, CPU of the first
# thread"), two builds side by side, for doc/record.md "The restore's cost":
# each build records rr_snap 3 300000 3 (a 3 MB heap) with --snap-period
# 250ms, then ROUNDS (default 8) rounds each run one `spool replay --goto`
# to its build's last snapshot, the two builds interleaved so that both see
# the same load. Prints each build's best and median of the whole restore's
# CPU and of the copy of the data ("contents"), in microseconds, and says
# when a replay failed or its output was not the recording's tail. Nothing
# is asserted. (SPOOL_DEBUG is given to the recording: a replay runs the
# program with the recorded environment, and the agent reads it there.)
set -uo pipefail

if [ $# -lt 2 ]; then
	echo "usage: bench/snap-ab.sh OLD_BUILD NEW_BUILD [ROUNDS]" >&2
	exit 2
fi
old=$(cd "$1" && pwd) || exit 1
new=$(cd "$2" && pwd) || exit 1
rounds=${3:-8}
work=$(mktemp -d /tmp/spool-bench-snapab.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

declare -A ev
for n in old new; do
	b=${!n}
	SPOOL_DEBUG=1 "$b/spool" record --snap-period 250ms -o "$n.trace" -- \
		"$b/tests/progs/rr_snap" 3 300000 3 >"$n.rec" 2>"$n.recerr"
	ev[$n]=$("$b/spool" info "$n.trace" | sed -n '/^snapshots:/,/^[a-z]/p' |
		grep -E '^ +[0-9]+ ' | tail -n 1 | awk '{ print $2 }')
	if [ -z "${ev[$n]}" ]; then
		echo "$n: no snapshot in the recording" >&2
		exit 1
	fi
done
for _ in $(seq "$rounds"); do
	for n in old new; do
		b=${!n}
		SPOOL_DEBUG=1 "$b/spool" replay --goto "${ev[$n]}" "$n.trace" >"$n.out" 2>"$n.err" ||
			echo "$n: the replay failed"
		cmp -s <(tail -c "$(wc -c <"$n.out")" "$n.rec") "$n.out" ||
			echo "$n: the output is not the recording's tail"
		grep -E 'restore, CPU' "$n.err" |
			sed -E "s/.*thread: ([0-9]+) us: .*contents ([0-9]+).*/$n \1 \2/" >>rows
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in old new; do
	grep "^$n " rows | sort -k2 -n | awk -v n="$n" '{ t[NR] = $2 }
		END { if (NR) printf "%s: restore CPU best %d us, median %d us (%d runs)", n, t[1], t[int((NR + 1) / 2)], NR }'
	grep "^$n " rows | sort -k3 -n | awk '{ t[NR] = $3 }
		END { if (NR) printf "; the copy best %d us, median %d us\n", t[1], t[int((NR + 1) / 2)] }'
done
sed -n 's/^spool-agent: restore, CPU/new: restore, CPU/p' new.err | tail -n 1
