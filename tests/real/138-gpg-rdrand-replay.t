#!/bin/bash
# SPDX-License-Identifier: MIT
# 138-gpg-rdrand-replay.t - gpg --gen-random: libgcrypt mixes the CPU's
# rdrand instruction into its random bytes where the CPU has it, and an
# instruction is nothing spool records. Before, the replay printed other
# random bytes than the recording with status 0: a wrong replay nobody was
# told of. Now the replay checks what each write writes (issue 13) and
# stops at the write of other bytes: status 3, "the write's bytes differ",
# advice naming rdrand. On a CPU without rdrand the bytes come from
# getrandom, which spool records: the replays print the recorded bytes.
. "$(dirname "$0")/lib.sh"
need_progs gpg
plan 8

# (gpg makes files in its home: each run starts from an empty one, as the
# recording did, so the replay sees the files the recording saw)
fresh_home() { rm -rf gh && mkdir -m 700 gh; }
if grep -qw rdrand /proc/cpuinfo; then rdrand=1; else rdrand=0; fi
diag "this CPU has rdrand: $rdrand"

for mode in serial sync; do
	fresh_home
	spool_run record -q --mode "$mode" -o "$mode.trace" -- gpg --batch --homedir "$PWD/gh" --gen-random 1 32
	is_rc 0 "$mode: record of gpg --gen-random 1 32 exits 0"
	cp run.out "$mode.out"
	fresh_home
	spool_run replay -q "$mode.trace"
	if [ "$rdrand" = 1 ]; then
		is_rc 3 "$mode: the replay stops as diverged at the write of other random bytes (status 3)"
		like "$ERR" "the write's bytes differ from the recorded ones" "  saying the write's bytes differ"
		like "$ERR" "spool: the replay computed other bytes.*rdrand" "  with advice that names rdrand"
	else
		is_rc 0 "$mode: the replay exits 0 (no rdrand: the bytes come from getrandom)"
		ok "  and prints the recorded bytes" cmp -s run.out "$mode.out"
		pass "  (no divergence to explain)"
	fi
done

done_testing
