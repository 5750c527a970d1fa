#!/bin/bash
# SPDX-License-Identifier: MIT
# 283-a64-attach-brk-detach.t - aarch64, on a real arm64 kernel (the VM of
# 276): the detach of `spool probe -p` with BRK probes in, again and again,
# must never kill the program. 276's BRK case and 282 died 2 runs in 5 at
# the detach with SIGTRAP (exit 133): a thread stopped inside the probe's
# SIGTRAP handler, or on the BRK of an out-of-line slot (the probed word run
# there, then `BRK #0x5a2` sends it back), or with the trap of a BRK it hit
# just before the stop still pending in the kernel, went on after the
# detach with no handler for SIGTRAP any more (the detach gave SIGTRAP back
# to the program at once), and the kernel's default action ended it. Now
# the detach is two steps (src/cmd/probe.c, probe_attach_out): the words put
# back and the recording stopped, the program let run with the handler
# still in until no thread is in it, in a slot or with a trap pending; then
# SIGTRAP and the signal calls' GOT slots given back
# (spool_agent_probe_release).
# tests/progs/attach_state linked with tests/probe/a64_fill.c (no trampoline
# page in reach: BRK probes; attach_step's first word, an stp, runs in a
# slot), attached and detached in ROUNDS processes one after another, each
# probed for a second while its three threads call attach_step.
. "$(dirname "$0")/lib.sh"
a64_need_vm
[ -x "$PROGS/attach_state" ] || _a64_skip "$PROGS/attach_state is not built (make ARCH=aarch64 progs)"
A64CC="${CROSS:-aarch64-linux-gnu-}gcc"
command -v "$A64CC" >/dev/null || _a64_skip "no $A64CC"
ROUNDS="${A64_283_ROUNDS:-8}"

plan 9

ok "attach_state linked with the space-filling library cross-builds" \
	a64_cc_fill "$REPO/tests/progs/attach_state.c" sfill -std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE

a64_vm_script
echo "ROUNDS=$ROUNDS" >>vm.sh
cat >>vm.sh <<'EOF'
wait_line() { i=0; while ! grep -qE "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; }
k=0
while [ $k -lt $ROUNDS ]; do
	SPOOL_DEBUG=1 ./sfill 120 stop$k >p$k.out 2>p$k.err &
	pid=$!
	wait_line p$k.out '^t 10$'
	run s$k env SPOOL_DEBUG=1 $S probe -p $pid -e func:attach_step --duration 1s -o s$k.trace
	touch stop$k
	wait $pid
	echo $? >p$k.rc
	k=$((k + 1))
done
EOF

a64_vm_boot

brk=0 spool_ok=0 placed=0 ran=0 killed=0 trapped=0 released=0 bad=""
for ((k = 0; k < ROUNDS; k++)); do
	grep -q "BRK probes written at the commit" "p$k.err" 2>/dev/null && brk=$((brk + 1))
	[ "$(cat "s$k.rc" 2>/dev/null)" = 0 ] && spool_ok=$((spool_ok + 1))
	grep -qE "attached to pid [0-9]+: 2 probes placed" "s$k.err" 2>/dev/null && placed=$((placed + 1))
	grep -q "SIGTRAP given back to the program" "s$k.err" 2>/dev/null && released=$((released + 1))
	rc="$(cat "p$k.rc" 2>/dev/null)"
	[ "$rc" = 133 ] && trapped=$((trapped + 1))
	if [ "$rc:$(tail -n 1 "p$k.out" 2>/dev/null | sed 's/calls [0-9]*/calls N/')" = \
		"0:done calls N check ok fp ok read ok code same" ]; then
		ran=$((ran + 1))
	else
		killed=$((killed + 1))
		bad="$bad round $k: status ${rc:-none}, last line '$(tail -n 1 "p$k.out" 2>/dev/null)';"
	fi
done
is "$brk" "$ROUNDS" "the probes were BRKs in every round ($ROUNDS)"
is "$spool_ok" "$ROUNDS" "  spool probe -p exited 0 in every round"
is "$placed" "$ROUNDS" "  both probes placed in every round"
is "$released" "$ROUNDS" "  SIGTRAP given back once no thread could trap any more, in every round" ||
	diag "$(cat s*.err 2>/dev/null | grep -i 'sigtrap\|handler' | head -5)"
is "$trapped" 0 "no program killed by SIGTRAP at the detach" || diag "$bad"
is "$ran:$killed" "$ROUNDS:0" "  every program ran on and ended with its results and its code unchanged" ||
	diag "$bad"

done_testing
