#!/bin/bash
# SPDX-License-Identifier: MIT
# 410-goto-uffd-tls.t - spool replay --goto when the first thread's static
# TLS sits in a region the restore fills with UFFDIO_COPY (64 KiB or more:
# here 256 KiB of __thread data in the executable; in GraphicsMagick with
# libgomp, tests/real/158, a 332 KiB mapping ld.so made). The restore runs
# on that thread, and the fresh process has its TLS where the recording's
# was: registered with the userfaultfd and not filled yet, the restore's
# own accesses to it (errno, the agent's variables, the kernel's read of
# the syscall user dispatch selector) faulted there: gm died of SIGSEGV
# from every snapshot; this program waited forever (now a SIGBUS, the
# userfaultfd's UFFD_FEATURE_SIGBUS). The restore now reads those pages
# first, the old way, and fills the rest of the region with UFFDIO_COPY.
# rr_snap_tls: each round, two workers created afresh (1 MiB stacks, as
# an OpenMP team) add up the first thread's TLS array, taking turns.
. "$(dirname "$0")/lib.sh"

plan 7

P="$PROGS/rr_snap_tls"

# SPOOL_DEBUG: the agent's restore line says what UFFDIO_COPY filled
SPOOL_DEBUG=1 spool_run record -q --snap-period 200 -o t.trace -- "$P" 40
is_rc 0 "record --snap-period 200: exit 0"
cp run.out rec.out
"$SPOOL" info t.trace >info.txt 2>&1
EVS=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' info.txt)
num_cmp "$(echo "$EVS" | grep -c .)" -ge 3 "it has snapshots (at events $(echo $EVS))"

# the first, a middle one and the one before the last (the program may be
# past its last round at the last)
PICK=$(echo "$EVS" | sed '$d' | awk '{ e[NR] = $1 } END { if (NR) print e[1]; if (NR > 2) print e[int((NR + 1) / 2)]; if (NR > 1) print e[NR] }')
good=0 tried=0 bad="" uf=0 tls=0 why=""
for e in $PICK; do
	SPOOL_DEBUG=1 spool_run replay -q --stuck-ms 5000 -o "r$e.trace" --goto "$e" t.trace
	tried=$((tried + 1))
	if [ "$RC" = 0 ] && tail_ok rec.out run.out; then
		good=$((good + 1))
	else
		bad="$bad $e(rc $RC)"
		diag "--goto $e: $(grep -m2 -E 'error|stuck|signal' run.err)"
	fi
	line=$(grep -m1 'restore, CPU of the first thread' run.err)
	k=$(echo "$line" | sed -nE 's/.* ([0-9]+) KiB by UFFDIO_COPY.*/\1/p')
	p=$(echo "$line" | sed -nE 's/.* ([0-9]+) pages of its own TLS read first.*/\1/p')
	w=$(echo "$line" | sed -nE 's/.*its last refusal errno ([0-9]+).*/\1/p')
	[ "${k:-0}" -gt 0 ] && uf=$((uf + 1))
	[ "${p:-0}" -gt 0 ] && tls=$((tls + 1))
	[ -n "$w" ] && [ "$w" != 0 ] && why=$w
done
num_cmp "$tried" -ge 2 "replayed from $tried snapshots"
is "$good" "$tried" "each exits 0 and prints the recording's tail${bad:+ (not:$bad)}"
is "$tls" "$tried" "each restore read its first thread's TLS pages first"
if [ "$uf" = 0 ] && [ -n "$why" ]; then
	skip 1 "no userfaultfd here (the agent's last refusal: errno $why): the restores copied the old way"
else
	is "$uf" "$tried" "each restore filled the rest with UFFDIO_COPY (SPOOL_DEBUG's line)"
fi

spool_run replay -q -o full.trace t.trace
ok "a replay from the start: exit 0, the recorded output" \
	bash -c "[ $RC = 0 ] && cmp -s run.out rec.out" || show_run
done_testing
