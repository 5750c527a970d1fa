#!/bin/bash
# SPDX-License-Identifier: MIT
# 43-many-libs.t - a program whose maps are long (200 libraries, like x264's
# 137) keeps its locks symbolized: the agent writes the maps text whole,
# into an area that grows with it, where it used to copy it into a fixed
# 64 KiB slot and cut the tail without a word, leaving the locks of the
# libraries past the cut as raw addresses. Its long command line (the 200
# paths) is kept whole too, where a 4 KiB slot cut it.
. "$(dirname "$0")/lib.sh"

PROG="$PROGS/dlopen_many"
CC="${CC:-cc}"
if [ ! -x "$PROG" ] || ! command -v "$CC" >/dev/null; then
	echo "1..0 # SKIP $PROG is not built or no C compiler"
	exit 0
fi
plan 8

NLIBS=200
cat >many.c <<'SRC'
#include <pthread.h>
pthread_mutex_t many_lock = PTHREAD_MUTEX_INITIALIZER;
void many_lock_fn(void)
{
	pthread_mutex_lock(&many_lock);
	pthread_mutex_unlock(&many_lock);
}
SRC
ok "a small library with a lock builds" "$CC" -shared -fPIC -g -O1 -o many.so many.c
mkdir libs
libs=()
for ((i = 0; i < NLIBS; i++)); do
	cp many.so "libs/libmany_copy_number_$i.so"
	libs+=("$PWD/libs/libmany_copy_number_$i.so")
done

spool_run locks -q -- "$PROG" "${libs[@]}"
is_rc 0 "spool locks runs a program that loads $NLIBS libraries"
is "$OUT" "loaded=$NLIBS" "  the program loaded them all"
maps="$(cat spool.trace/.spool/proc/*.maps)"
num_cmp "${#maps}" -gt 65536 "  the trace keeps its maps whole: ${#maps} bytes, more than the old 64 KiB"
is "$(grep -o 'libmany_copy_number_[0-9]*' <<<"$maps" | sort -u | wc -l)" "$NLIBS" \
	"  every library is in it"
cmd="$(tr '\0' '\n' <spool.trace/.spool/proc/*.cmdline)"
num_cmp "${#cmd}" -gt 4096 "  and its command line whole: ${#cmd} bytes, more than the old 4 KiB slot"
like "$cmd" "libmany_copy_number_$((NLIBS - 1))\\.so\$" "  down to its last argument"
report_json spool.trace
is "$(lock_stat report.json many_lock "$F_ACQ")" 1 \
	"  the lock of the first library (mapped highest, last in the maps) is symbolized"

done_testing
