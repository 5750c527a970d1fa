#!/bin/bash
# SPDX-License-Identifier: MIT
# 30-a64-sysroot.t - the host/target split's symbolization: a trace made by
# spool's aarch64 build (under qemu-user) is reported by the host's x86-64
# spool with --sysroot pointing at a copy of the board's files. The program
# runs from this test's directory and is then moved into the copy, so only
# the copy can name it; the copy's /var/cache/spool-arm64/lib is an absolute
# link, as a board's merged /lib is, which must resolve inside the copy.
# Another build at the same path is refused (said once, addresses raw),
# never used to name anything. make install-target ARCH=aarch64 installs
# what the board needs, and that spool runs under qemu-user.
. "$(dirname "$0")/lib.sh"

plan 13

mkdir -p bin
cp "$PROGS/lockcount" bin/lockcount
spool_run locks -q -o t.trace -- "$T_DIR/bin/lockcount" 2 100
is_rc 0 "the aarch64 spool profiles the aarch64 program under qemu"
root="$T_DIR/board"
mkdir -p "$root$T_DIR/bin"
mv bin/lockcount "$root$T_DIR/bin/lockcount"
# the board's libraries, reached through an absolute link inside the copy
libc="$(grep -o '/[^ ]*/libc\.so\.6$' t.trace/.spool/proc/*.buildids | head -n 1 | sed 's/^[^:]*://')"
libdir="$(dirname "$libc")"
mkdir -p "$root/real$libdir" "$(dirname "$root$libdir")"
cp "$libc" "$root/real$libdir/"
ln -s "/real$libdir" "$root$libdir"

host_run report --locks t.trace
unlike "$OUT" 'worker' "without --sysroot the host's spool cannot name the moved program (the control)"

host_run report --locks --sysroot "$root" t.trace
is_rc 0 "the host's spool reports the aarch64 trace with --sysroot"
like "$OUT" 'worker\+0x[0-9a-f]+ \(lockcount\.c:[0-9]+\)' "  the locks' init sites are named from the copy, with lines"
like "$OUT" 'shared_lock' "  the global lock is named"

host_run info --sysroot "$root" t.trace
like "$OUT" "$T_DIR/bin/lockcount: same build" "info --sysroot: the copy of the program is the run's build"
like "$OUT" "$libc: same build" "  and the copy's libc, through the absolute link inside the copy"

# --- another build at the same path ---
cp "$PROGS/rr_bank" "$root$T_DIR/bin/lockcount"
host_run report --locks --sysroot "$root" t.trace
like "$ERR" 'another build' "another build in the copy is refused, saying why"
is "$(grep -c 'another build' run.err)" 1 "  said once"
unlike "$OUT" 'shared_lock|worker|main|bank|transfer' "  no name from the other build"
like "$OUT" 'mutex#[0-9]+ +mutex ' "  the locks are named by type and index, as with no symbols (src/analyze/lockname.c)"

# --- make install-target for the board ---
board_inst="$T_DIR/inst"
make -s -C "$REPO" ARCH=aarch64 O="$SPOOL_A64" install-target DESTDIR="$board_inst" PREFIX=/usr >make.out 2>&1
is "$(cd "$board_inst" 2>/dev/null && find . -type f | sort | tr '\n' ' ')" \
	"./usr/bin/spool ./usr/lib/spool/libspool-agent.so ./usr/lib/spool/libspool-progress.so " \
	"make ARCH=aarch64 install-target installs only spool, the agent and the progress library"
SPOOL="$board_inst/usr/bin/spool"
spool_run locks -q -o inst.trace -- "$PROGS/lockcount" 2 50
is_rc 0 "  the installed aarch64 spool runs (agent from ../lib/spool)"

done_testing
