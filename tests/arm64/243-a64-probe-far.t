#!/bin/bash
# SPDX-License-Identifier: MIT
# 243-a64-probe-far.t - aarch64 probes in a module whose code spans more
# than a B reaches (+-128 MiB): a program built here with 140 MiB of code
# between two functions (near_fn, far_fn; the linker adds a veneer for the
# calls that cross it). One trampoline page cannot be near both: the agent
# places a second one near far_fn (a64_agent_probe.c), so every probe is
# placed and counts exactly, and the program runs as without spool. Needs
# the cross compiler (make check-arm64 has it), writes a 147 MB file.
. "$(dirname "$0")/lib.sh"

XCC="${CROSS_CC:-aarch64-linux-gnu-gcc}"
command -v "$XCC" >/dev/null || _a64_skip "no $XCC to build the test program"
plan 6

cat >far.c <<'C'
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) long near_fn(long x)
{
	return x + 1;
}

__asm__(".text\n.p2align 2\n.skip 140*1024*1024\n");

__attribute__((noipa)) long far_fn(long x)
{
	return x * 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, s = 0;

	for (long i = 0; i < n; i++)
		s += near_fn(i) + far_fn(i);
	printf("%ld\n", s);
	return 0;
}
C
ok "a program with 140 MiB of code between two functions builds" \
	"$XCC" --sysroot="$QEMU_LD_PREFIX" -O1 -fno-toplevel-reorder -o far far.c
native="$(./far 300)"
SPOOL_DEBUG=1 spool_run probe -e 'func:near_fn' -e 'func:far_fn' -o far.trace -- ./far 300
is "$RC:$(grep -v '^spool' run.out)" "0:$native" "spool probe: the program's output and status unchanged"
like "$ERR" "trampolines in 2 pages" "  the agent placed a second trampoline page near far_fn"
like "$ERR" "4 of 4 probes placed" "  every probe placed"
host_run report --functions --json far.trace
cp run.out far.json
n_of() {
	json far.json "[str(f['calls']) + ' ' + str(f['no_exit']) for f in d['functions'] if f['name'] == '$1'][0]"
}
is "$(n_of near_fn)" "300 0" "  near_fn: 300 calls, every exit seen"
is "$(n_of far_fn)" "300 0" "  far_fn: 300 calls, every exit seen"
rm -f far

done_testing
