#!/bin/bash
# SPDX-License-Identifier: MIT
# 284-rr-out-err.t - a program whose stdout and stderr are one file
# (`prog >out 2>&1`): the replay's file holds the recording's bytes in the
# recording's order (doc/record.md "Standard output and error").
# tests/progs/rr_outerr's threads write lines to stdout and stderr with
# nothing ordering them but the file: raw write(2)s, and printf against
# fprintf(stderr) with a third thread's write to fd 1. Sync mode orders
# the threads' writes to 1 and 2 as one object (before, most sync replays
# left the lines in another order and said nothing); serial mode and a
# forked child writing stderr while its parent writes stdout are pinned
# too (before, a replayed process that waited for 100 of the others'
# writes stopped waiting, and its lines came out among theirs). A replay whose own stdout and stderr are two files puts the
# program's stderr on its stdout, as recorded, in the recorded order.
# Last, stdio in a library's constructor, which runs before the agent's:
# it prints to stdout and stderr, reads a file with fopen/fgets and a line
# of stdin; the file is changed before each replay, which must still
# print the recorded line (the reads are early reads now, kept and given
# back; before, the replay read the file as it was then and said nothing).
. "$(dirname "$0")/lib.sh"

plan 14

P="$PROGS/rr_outerr"

# the program's bytes in FILE (spool's own lines dropped)
_prog() { grep -av '^spool\(-agent\)\?: \|^  \(recorded\|replay\): ' "$1"; }

# rounds MODE PMODE N: N recordings of `rr_outerr PMODE >f 2>&1`, each
# replayed once the same way; sets SAME, LOUD (reported divergences),
# SILENT (other bytes, no word), FLAG (recordings with RR_F_OUT_TURN)
rounds() {
	local mode=$1 pm=$2 n=$3 i rc flags
	SAME=0 LOUD=0 SILENT=0 FLAG=0
	for ((i = 1; i <= n; i++)); do
		rm -rf t.trace
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode "$mode" -o t.trace -- \
			"$P" "$pm" 400 >rec.all 2>&1 </dev/null
		rc=$?
		if [ "$rc" != 0 ]; then
			diag "record $i of $mode $pm: exit $rc" "$(tail -n 5 rec.all)"
			continue
		fi
		check_sanitizer rec.all "record $mode $pm"
		flags=$(sed -n 's/^flags=//p' t.trace/.spool/record)
		[ $(( ${flags:-0} & 0x200000 )) -ne 0 ] && FLAG=$((FLAG + 1))
		_prog rec.all >rec.f
		timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q t.trace >rep.all 2>&1 </dev/null
		rc=$?
		check_sanitizer rep.all "replay $mode $pm"
		_prog rep.all >rep.f
		if [ "$rc" = 0 ] && cmp -s rec.f rep.f; then
			SAME=$((SAME + 1))
		elif [ "$rc" = 3 ] && grep -q '^spool: error: replay diverged' rep.all; then
			LOUD=$((LOUD + 1))
			diag "replay $i of $mode $pm: $(grep -m 1 '^spool: error: ' rep.all)"
		else
			SILENT=$((SILENT + 1))
			diag "replay $i of $mode $pm: exit $rc, against the recording:" \
				"$(diff rec.f rep.f | head -n 6)"
		fi
	done
}

rounds sync raw 8
is "$FLAG" 8 "8 sync recordings of 2 threads' write(1)/write(2) to one file say they ordered them"
is "$SILENT" 0 "  no replay left other bytes or another order without saying so"
ok "  and most replays leave the recorded bytes ($SAME of 8, $LOUD reported)" test "$SAME" -ge 6

rounds sync stdio 8
is "$SILENT" 0 "8 sync recordings of printf against fprintf(stderr) and write(1): no silent difference"
ok "  and most replays leave the recorded bytes ($SAME of 8, $LOUD reported)" test "$SAME" -ge 6

rounds serial stdio 3
is "$SAME" 3 "serial mode: 3 replays of the threads leave the recorded bytes"

rounds serial tree 3
is "$SAME" 3 "serial mode: a child writing stderr and its parent stdout, 3 replays leave the recorded bytes"

rounds sync tree 3
is "$SAME" 3 "sync mode: the same, 3 replays leave the recorded bytes"

# the last sync stdio recording again, replayed with stdout and stderr apart
rounds sync stdio 1
timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q t.trace >apart.out 2>apart.err </dev/null
rc=$?
_prog apart.out >apart.f
is "$rc" 0 "a replay into two files ends as recorded"
if [ "$SAME" = 1 ] && cmp -s rec.f apart.f && [ -z "$(_prog apart.err)" ]; then
	pass "  its stdout holds the recording's stdout and stderr, in the recorded order"
else
	fail "  its stdout holds the recording's stdout and stderr, in the recorded order"
	diag "$(diff rec.f apart.f | head -n 6)" "stderr: $(_prog apart.err | head -n 3)"
fi

need_cc
cat >early.c <<'SRC'
#include <stdio.h>
#include <string.h>
char early_line[128];
__attribute__((constructor)) static void early_init(void)
{
	FILE *f = fopen("conf.txt", "r");

	printf("ctor: stdout before main\n");
	fprintf(stderr, "ctor: stderr before main\n");
	if (f) {
		if (!fgets(early_line, 64, f))
			strcpy(early_line, "(empty)\n");
		fclose(f);
	}
	if (!fgets(early_line + strlen(early_line), 60, stdin))
		strcat(early_line, "(no stdin)\n");
}
SRC
cat >main.c <<'SRC'
#include <stdio.h>
extern char early_line[128];
int main(void) { printf("main: %s", early_line); fflush(stdout); fprintf(stderr, "main: end\n"); return 0; }
SRC
early_prog_build
for m in serial sync; do
	echo "recorded configuration" >conf.txt
	echo "a line of stdin" >in.txt
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" record -q --mode "$m" -o "c$m.trace" -- ./early_prog \
		<in.txt >rec.all 2>&1
	rc=$?
	_prog rec.all >rec.f
	if [ "$rc" = 0 ] && grep -q '^main: recorded configuration' rec.f && grep -q '^a line of stdin' rec.f; then
		pass "$m: a constructor's stdio recorded (its file and stdin read, both streams printed)"
	else
		fail "$m: a constructor's stdio recorded (its file and stdin read, both streams printed)"
		diag "exit $rc" "$(cat rec.all)"
	fi
	echo "changed since" >conf.txt
	timeout -k 10 "$T_TIMEOUT" "$SPOOL" replay -q "c$m.trace" </dev/null >rep.all 2>&1
	rc=$?
	check_sanitizer rep.all "replay of the constructor's stdio"
	_prog rep.all >rep.f
	if [ "$rc" = 0 ] && cmp -s rec.f rep.f; then
		pass "  its replay, with the file changed, leaves the recording's bytes"
	else
		fail "  its replay, with the file changed, leaves the recording's bytes"
		diag "exit $rc" "$(diff rec.f rep.f | head -n 6)"
	fi
done
done_testing
