#!/bin/bash
# SPDX-License-Identifier: MIT
# 137-vim-sevthread.t - Debian's vim with a SIGEV_THREAD timer, recorded
# and replayed in both modes (doc/record.md "SIGEV_THREAD timers"): vim -es
# runs search() with a 20 ms timeout on a backtracking pattern that would
# take hours; vim arms a SIGEV_THREAD timer (timer_create) whose function
# sets the flag its regexp engine polls, and the search gives up (0). The
# result and the file vim writes are compared with the recording's, 3
# replays each. In sync mode the function runs in a notifier thread spool
# numbers (thread 1), woken through a recorded sigwaitinfo: the recording
# shows it. Serial mode keeps glibc's way (the function outside the
# schedule): a numbered notifier would wait for the run token while the
# search computes without a switch point.
. "$(dirname "$0")/lib.sh"
need_progs vim
plan 5

mkdir app
"$REAL_PY" -c 'print("a" * 40)' >app/in.txt
cat >app/t.vim <<'VIM'
let r = search('\%#=1\v^(a|aa)*\d', 'W', 0, 20)
call writefile(['search ' . r . ' line ' . line('.')], 'out.txt')
qa!
VIM
for m in serial sync; do
	rr_corpus vim-sevthread "$m" --dir app -- vim -es -u NONE -i NONE -N -S t.vim in.txt
done
tr="$T_DIR/corpus/vim-sevthread.sync/rec.trace"
"$SPOOL" replay --dump-schedule "$tr" >dump.txt 2>&1
ok "sync: the timer's function ran in a numbered notifier woken by a recorded sigwaitinfo" \
	grep -q '^input thread 1 event 1 call 23 fd -1 result 64 ' dump.txt
done_testing
