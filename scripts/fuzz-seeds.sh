#!/bin/bash
# SPDX-License-Identifier: MIT
# fuzz-seeds.sh - regenerate the seed corpus of the fuzz harnesses
# (fuzz/corpus/<harness>/) from real traces of tests/progs programs, small
# runs so each seed stays a few KiB. Crash regressions (files named
# crash-*) are kept; every other seed is replaced.
#
#   scripts/fuzz-seeds.sh [BUILD_DIR]      (default build; make all progs first)
#
# Paths of this checkout inside the traces are made relative to it
# (fuzz-pack.py --strip-root), so seeds name build/tests/progs/... and the
# harnesses, run from the repository's root, find those binaries in any
# checkout that built them.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
spool=$build/spool
progs=$build/tests/progs
pack="python3 $here/scripts/fuzz-pack.py --strip-root $here --own-maps"
corpus=$here/fuzz/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

for h in reader locks funcs coverage vars path export rrlog decode probe; do
	mkdir -p "$corpus/$h"
	find "$corpus/$h" -type f ! -name 'crash-*' -delete
done

# run NAME SPOOL_ARGS...: a trace in $work/NAME (quietly; a failing run is
# still a seed if it left a trace).
run() {
	local name=$1
	shift
	"$spool" "$@" >"$name.out" 2>"$name.err" </dev/null || true
	[ -f "$name/metadata" ] || { echo "fuzz-seeds: no trace from: spool $*" >&2; return 1; }
}

# seed HARNESS NAME TRACE [OPTS_HEX] [pack options]
seed() {
	local h=$1 name=$2 dir=$3 opts=${4:-}
	shift 4 || shift $#
	$pack --opts "$opts" "$@" "$dir" "$corpus/$h/$name"
}

# Lock traces: every kind of sync object, stacks, a crash, a fork.
run trylock locks -o trylock -- "$progs/trylock" 3 3
run rwlock locks -o rwlock -- "$progs/rwlock" 2 2
run sem locks -o sem -- "$progs/sem" 20
run condvar locks -o condvar -- "$progs/condvar" 20
run barrier locks -o barrier -- "$progs/barrier" 3 3
run timedlock locks -o timedlock -- "$progs/timedlock" 1 1
run inversion locks -o inversion -- "$progs/inversion"
run stacks locks --stacks 4 -o stacks -- "$progs/lockcount" 2 20
run segv locks -o segv -- "$progs/crash" 20
run forker locks -o forker -- "$progs/forker" 3
for t in trylock rwlock sem condvar barrier timedlock inversion stacks segv forker; do
	[ -d $t ] || continue
	seed locks $t $t 00
	seed export $t-perfetto $t 00
done
seed locks condvar-json condvar 01
seed locks stacks-json stacks 11
seed export barrier-chrome barrier 01
seed reader trylock trylock 00
seed reader condvar-bystream condvar 01
seed reader stacks-store stacks 02
seed reader forker-shard forker 0c
# Format 1 is still read (doc/trace-format.md, "Versions"): its seeds too.
SPOOL_TRACE_FORMAT=1 run trylock-v1 locks -o trylock-v1 -- "$progs/trylock" 3 3 &&
	seed reader trylock-v1 trylock-v1 00
SPOOL_TRACE_FORMAT=1 run stacks-v1 locks --stacks 4 -o stacks-v1 -- "$progs/lockcount" 2 20 &&
	seed reader stacks-v1 stacks-v1 02
# Packets the agent wrote in its ring (the default; SPOOL_RING_PACKETS=1 says
# so whatever the default: doc/trace-format.md "Packets in the ring"): a lock
# trace, one whose last packet the collector closed after a crash, and a
# probe trace.
SPOOL_RING_PACKETS=1 run trylock-pkt locks -o trylock-pkt -- "$progs/trylock" 3 3 &&
	seed reader trylock-pkt trylock-pkt 00
SPOOL_RING_PACKETS=1 run segv-pkt locks -o segv-pkt -- "$progs/crash" 20 &&
	seed locks segv-pkt segv-pkt 00
SPOOL_RING_PACKETS=1 run funcs-pkt probe -q -e 'func:probe_[lt]*' -e 'func:main' -o funcs-pkt -- \
	"$progs/probe_calls" 3 &&
	seed reader funcs-pkt funcs-pkt 00 && seed funcs funcs-pkt funcs-pkt 00

# Probe traces: functions, blocks and branches, variables, system probes.
run funcs probe -q -e 'func:probe_[lt]*' -e 'func:main' -e 'func:worker' -o funcs -- "$progs/probe_calls" 3
run cov probe -q -e 'block:*' -e 'branch:*' -o cov -- "$progs/probe_cov" 5
run vars probe -q -e 'var:char:c@compute:exit' -e 'var:int:i@compute:exit' \
	-e 'time:main' -o vars -- "$progs/probe_vars" 3 1
run assert probe -q -e 'assert:x < limit@check' -o assert -- "$progs/probe_vars" 3 1 || true
run sys probe -q -e sys:cpu -e sys:io -e sys:mem -o sys -- "$progs/probe_sys" 2 100
run args probe -q -e 'args:*' -o args -- "$progs/probe_args" 2
seed funcs funcs funcs 00
seed funcs funcs-folded funcs 0a
seed funcs funcs-svg-calls funcs 0d
seed funcs args args 01
seed export funcs-perfetto funcs 00
seed coverage cov cov 00
seed coverage cov-info cov 03
seed vars vars vars 00
seed vars vars-json vars 03
seed vars sys sys 01
seed vars args args 00
[ -d assert ] && seed vars assert assert 00
# C++ names with blanks: the vars file's sidewords (version 2)
if command -v g++ >/dev/null; then
	g++ -g -O0 -o probe_blanks "$here/tests/progs/cxx/probe_blanks.cpp"
	run blanks probe -q -e 'var:int:(anonymous namespace)::count@work:exit' \
		-e 'var:int:Pair<int, char>::hits@work:exit' -e 'assert:n >  3@work' \
		-e 'time:Box<int, char>::put(int)' -o blanks -- "$work/probe_blanks" 2
	seed vars cxx-blanks blanks 00
fi
seed reader funcs funcs 00
seed reader sys sys 00

# spool path: -finstrument-functions entries and function probes.
run pathf path -w pathf.txt -t pathf -- "$progs/path_prodcons-finst" 2
run pathp path -w pathp.txt -t pathp -- "$progs/path_prodcons" 2
seed path finst pathf 00
seed path finst-exits-json pathf 03
seed path finst-check pathf 04
seed path probes pathp 00
seed path probes-check pathp 14
# a program whose path holds spaces: the probes side file's sidewords (version 3)
mkdir -p "my dir" && cp "$progs/path_prodcons" "my dir/prod cons"
run pathsp path -w pathsp.txt -t pathsp -- "$work/my dir/prod cons" 2
seed path probes-spaces pathsp 00

# Recordings: sync and serial, compressed inputs, signals; the replay image
# of one (made by its first replay).
run order record --mode sync -o order -- "$progs/rr_order" 2 5
run bank record -o bank -- "$progs/rr_bank" 2 20
echo hello >input.txt
run inputs record --compress -o inputs -- "$progs/rr_inputs" input.txt
run img record -o img -- "$progs/rr_order" 2 3
"$spool" replay img >/dev/null 2>&1 || true
seed rrlog order-sync order 04
seed rrlog bank-serial bank 05
seed rrlog bank-image-roundtrip bank 03
seed rrlog inputs inputs 05
[ -f img/.spool/replay.img ] && seed rrlog image img 01 --image
seed reader inputs-zstd inputs 00
seed reader bank bank 00

# spool cc: a program built by spool cc, its trace and its table.
if command -v clang-14 >/dev/null && [ -x "$build/spool-ccopt" ]; then
	export SPOOL_CCOPT=$build/spool-ccopt
	"$spool" cc -O2 -I"$here/include" "$here/tests/cc/bank.c" -o bank-cc >cc.err 2>&1
	run cctrace locks -q -o cctrace -- ./bank-cc 5
	objcopy --dump-section .spool_cc_table=table.txt bank-cc bank-cc.copy
	seed decode cc-table cctrace 00 --extra table=table.txt
	seed decode cc-table-json cctrace 01 --extra table=table.txt
	seed decode cc-table-counts cctrace 06 --extra table=table.txt
	seed decode cc-table-out cctrace 08 --extra table=table.txt
	cp bank-cc "$corpus/probe/bank-cc"
fi
seed decode plain trylock 00

# ELF files for probe planning: small test programs, one stripped.
for p in probe_cov probe_vars probe_args probe_tails probe_switch; do
	cp "$progs/$p" "$corpus/probe/$p"
done
strip -o "$corpus/probe/probe_cov-stripped" "$progs/probe_cov"

du -sh "$corpus"
for h in "$corpus"/*; do echo "$(basename "$h"): $(ls "$h" | wc -l) seeds, $(du -sk "$h" | cut -f1) KiB"; done
