#!/bin/bash
# SPDX-License-Identifier: MIT
# 142-ruby-all.t - Debian's ruby 3.1 (libruby stripped; its threads are
# pthreads that take turns on the GVL, a mutex and condition variables of
# its own; Random seeded with getentropy) running a script of 3 worker
# threads that pop numbers from a Queue, add under a Mutex, write a file
# and print a rand, under every command as a new user would try it:
# spool locks (the GVL's mutex, 4 threads), spool probe (func: on libruby's
# exported functions, args: and var: on libc's write, branch:), spool path
# (only the executable is probed: ruby's is a stub), spool record and spool
# replay in serial and sync mode (3 replays each: stdout, the file, the
# exit), spool record --snap-period and spool replay --goto, spool info.
# The replays run `ruby --disable-gems` (quicker); with rubygems loaded the
# GC runs while ruby starts, and its conservative scan of the stack reads
# words no call wrote, what the agent left there: recorded and replayed
# with rubygems too (serial, 3 replays).
. "$(dirname "$0")/lib.sh"
need_progs ruby
plan 21

cat >t.rb <<'EOF'
q = Queue.new
m = Mutex.new
total = 0
workers = 3.times.map do
  Thread.new do
    while (n = q.pop) != :done
      s = (1..n).reduce(0) { |a, b| a + b * b }
      m.synchronize { total += s }
    end
  end
end
(1..200).each { |i| q << i * 10 }
3.times { q << :done }
workers.each(&:join)
File.write("out.txt", "total #{total}\n")
puts "total #{total} rand #{rand(1000000)}"
EOF
mkdir rb
cp t.rb rb/
RB=(ruby --disable-gems t.rb)

(cd rb && ruby --disable-gems t.rb) >native.out 2>&1
ok "ruby alone: the total (134804368500) and the file" \
	bash -c "grep -q '^total 134804368500 rand ' native.out && grep -qx 'total 134804368500' rb/out.txt"

# --- locks
(cd rb && "$SPOOL" locks -o ../lk.trace -- "${RB[@]}") >run.out 2>run.err
RC=$?
check_sanitizer run.err "spool locks (ruby)"
ok "locks: exit 0, ruby's output" bash -c "[ $RC = 0 ] && grep -q '^total 134804368500 ' run.out" || show_run
report_json lk.trace
threads=$(json report.json "len(d['threads'])")
acq=$(json report.json "max(l['acquisitions'] for l in d['locks'])")
all=$(json report.json "max(l['threads'] for l in d['locks'])")
diag "locks: $threads threads, the busiest lock taken ${acq:-?} times"
is "$threads" 4 "locks: ruby's main thread and its 3 workers"
is "$all" 4 "locks: a lock all 4 threads took (the GVL's, Queue's or the Mutex's)"
is "$(info_lost lk.trace)" 0 "locks: spool info says 0 events lost"

# --- probe
(cd rb && "$SPOOL" probe -o ../pf.trace -e 'func:libruby*:rb_ary_push' \
	-e 'args:libc.so*:write:int,char*,unsigned long->long' \
	-e 'var:auto:nbytes@libc.so*:write:entry' -e 'branch:libruby*:rb_ary_push' -- "${RB[@]}") >run.out 2>run.err
RC=$?
check_sanitizer run.err "spool probe (ruby)"
ok "probe func:, args:, var: and branch: on libruby and libc: exit 0, ruby's output" \
	bash -c "[ $RC = 0 ] && grep -q '^total 134804368500 ' run.out" || show_run
"$SPOOL" report --functions --json pf.trace >pf.json 2>/dev/null
pushes=$(json pf.json "sum(f['calls'] for f in d['functions'] if f['name'] == 'rb_ary_push')")
num_cmp "${pushes:-0}" -ge 100 "probe: rb_ary_push, exported by the stripped libruby, was called (${pushes:-?} calls)"
"$SPOOL" report --vars --json pf.trace >pv.json 2>/dev/null
is "$(json pv.json "(lambda v: v['nbytes'] == v['arg3'] and len(v['nbytes']) >= 1)({n: [p['value'] for x in d['vars'] if x['name'] == n for p in x['values']] for n in ('nbytes', 'arg3')})")" \
	1 "probe: write's nbytes by libc's DWARF and its third argument by the ABI agree at every call"

"$SPOOL" probe -o fa.trace -e 'func:ruby:main' -- "${RB[@]}" >run.out 2>run.err
RC=$?
like "$(cat run.err)" "'ruby' names the program itself .*leave LIB out" \
	"probe: a LIB that names the program itself is refused with the reason"

# --- path: the executable only, a stub calling libruby
(cd rb && "$SPOOL" path -o ../pa.trace -w ../path.txt -- "${RB[@]}") >run.out 2>run.err
RC=$?
ok "path: exit 0, function entries of the executable" \
	bash -c "[ $RC = 0 ] && grep -qE '^ +[0-9]+ +[0-9.]+ +T0/' path.txt" || show_run

# --- record and replay
rr_corpus ruby serial --dir rb -- "${RB[@]}"
# sync: the GVL's hand-offs also poll flags without a lock (a data race
# sync mode does not order: it stops at a reported divergence, or not)
rr_corpus ruby sync --dir rb --may-diverge "ruby's GVL polls flags without a lock" -- "${RB[@]}"
rf=$(grep -c ' call 15 ' <("$SPOOL" replay --dump-schedule "$T_DIR/corpus/ruby.serial/rec.trace" 2>/dev/null))
num_cmp "$rf" -ge 1 "serial: Random's seed (getentropy) is a recorded input"

# with rubygems: the GC runs while ruby starts, and its conservative scan
# reads stack words no call wrote: the agent's entry stubs leave the same
# ones in a recording and in its replay (doc/record.md, "The program's
# stack"; before them every replay diverged at the GC's clock_gettime)
rm -rf gems && cp -a rb gems
(cd gems && "$SPOOL" record -q -o ../gems.trace -- ruby t.rb) >gems.rec 2>gems.rec.err
same=0
for i in 1 2 3; do
	(cd gems && "$SPOOL" replay -q -o ../gems.rep$i.trace ../gems.trace) >gems.rep 2>gems.rep.err
	RC=$?
	[ "$RC" = 0 ] && cmp -s gems.rec gems.rep && same=$((same + 1))
done
is "$same" 3 "with rubygems: 3 replays of 3 print the recording's output and exit 0" ||
	diag "$(head -n 5 gems.rep.err)"
unlike "$(cat gems.rep.err)" 'AddressSanitizer|Segmentation|stuck' "with rubygems: a replay that differs stops with a report, no crash or hang"

# --- snapshots and --goto
(cd rb && "$SPOOL" record -q --snap-period 1 -o ../snap.trace -- "${RB[@]}") >snap.out 2>snap.err
RC=$?
cp rb/out.txt snap.file
ok "record --snap-period 1: exit 0, ruby's output" bash -c "[ $RC = 0 ] && grep -q '^total 134804368500 ' snap.out" ||
	diag "$(cat snap.err)"
"$SPOOL" info snap.trace >sinfo.txt 2>&1
ev=$(awk '/^ +snap +event/{f=1; next} f && /^ +[0-9]+ +[0-9]+ /{print $2}' sinfo.txt | tail -n 1)
if [ -z "$ev" ]; then
	skip 3 "no snapshot taken: $(grep -A 3 '^snapshots' sinfo.txt)"
else
	rm -f rb/out.txt
	(cd rb && "$SPOOL" replay -o ../g.trace --goto "$ev" ../snap.trace) >goto.out 2>goto.err
	RC=$?
	check_sanitizer goto.err "spool replay --goto (ruby)"
	ok "replay --goto $ev: the file opened after the snapshot is written as recorded (its descriptor number)" \
		cmp -s rb/out.txt snap.file || diag "$(cat goto.err)"
	ok "replay --goto $ev: stdout is the recording's tail" \
		bash -c "[ -s goto.out ] && tail -c \$(wc -c <goto.out) snap.out | cmp -s - goto.out" || diag "$(cat goto.err)"
	# (before snapshots held POSIX timers, ruby's timer_delete at exit
	# failed there and it wrote an error the recording had not)
	ok "replay --goto $ev: exit 0, ruby's timer made again (its timer_delete at exit works)" \
		bash -c "[ $RC = 0 ] && grep -q 'POSIX timer' goto.err" || diag "$(cat goto.err)"
fi
done_testing
