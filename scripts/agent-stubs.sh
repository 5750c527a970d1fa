#!/bin/sh
# SPDX-License-Identifier: MIT
# agent-stubs.sh - makes the agent's stack-scrubbing entry stubs (Makefile).
#
# usage: agent-stubs.sh AGENT_MAP OUT_S OUT_SYMS
#
# Every function agent.map exports, except those named below, gets a stub
# of that name in OUT_S (the macro AGENT_STUB of src/arch/<cpu>/agent_stub.h)
# and a line "NAME spool_i_NAME" in OUT_SYMS, with which objcopy renames the
# C definition the stub calls. While recording or replaying, a stub calls the
# C function and then zeroes the stack below its caller that the agent used,
# so the program finds the same stack words in a recording and in its replay
# (doc/record.md, "The program's stack"); otherwise it is a tail jump.
#
# Left out, with why:
#  - calls that read their caller's return address or frame for what they do
#    (dlsym and dlopen: RTLD_NEXT and the caller's namespace), or that do not
#    return the normal way or return twice on one stack (longjmp, unwinding,
#    vfork, clone, _Fork, pthread_exit, swapcontext);
#  - calls spool makes itself in a stopped target (spool_agent_probe_*);
#  - variadic calls whose arguments may lie anywhere up the caller's stack
#    (the printf and scanf families: a stub copies a fixed number of stack
#    words);
#  - pass-throughs while recording and replaying that are hot: the
#    allocator, the program's own trace calls, -finstrument-functions and
#    coverage callbacks (a scrub on every block would cost more than the
#    program).
set -eu
map=$1
out_s=$2
out_syms=$3

skip='swapcontext dlsym dlopen longjmp siglongjmp _longjmp __longjmp_chk _Unwind_RaiseException
_Unwind_Resume _Unwind_Resume_or_Rethrow _Unwind_ForcedUnwind __cxa_begin_catch vfork clone
_Fork pthread_exit spool_agent_probe_prepare spool_agent_probe_commit spool_agent_probe_detach
spool_agent_probe_ctl spool_agent_probe_dispatch spool_agent_probe_thread_out
printf fprintf dprintf __printf_chk __fprintf_chk __dprintf_chk scanf fscanf __isoc99_scanf
__isoc99_fscanf malloc calloc realloc free posix_memalign aligned_alloc memalign valloc pvalloc
spool_trace_emit spool_trace_emit_nt __cyg_profile_func_enter __cyg_profile_func_exit
__sanitizer_cov_trace_pc __sanitizer_cov_trace_pc_guard __sanitizer_cov_trace_pc_guard_init'

names=$(sed -e ':a' -e '/\/\*/{' -e '/\*\//!{N;ba' -e '}' -e 's:/\*.*\*/::' -e '}' "$map" |
	awk '/global:/ {on = 1; sub(/.*global:/, "")} /local:/ {on = 0} on' |
	tr ';' '\n' | tr -d ' \t' | grep -v '^$' | sort -u)

# Hot calls whose agent paths are shallow: a lock's turn, a clock's or a
# pid's log record or its replay (leaf, AGENT_STUB_LEAF: AGENT_SCRUB_LEAF
# bytes, 4 KiB for now: measured at most 792 deep on the record/replay
# tests with SPOOL_SCRUB_CHECK, but 1 KiB made sync replays fail,
# src/arch/x86_64/agent_stub.h says why; tests/integ/374 fails when one goes
# deeper than its span); calls that
# wait, may time out or run the program's code under them (a once's
# routine, a condition's or semaphore's wait, cancellation, one-character
# stdio: AGENT_STUB, AGENT_SCRUB_FAST, 4 KiB); calls with deep paths under
# them (name lookups, tree walks, process creation) AGENT_STUB_DEEP,
# AGENT_SCRUB_DEEP; every other stub (AGENT_STUB_WIDE) AGENT_SCRUB_WIDE.
# The agent's rare deep paths under them (a snapshot) zero after
# themselves (agent_stack_scrub).
leaf='pthread_mutex_lock pthread_mutex_trylock pthread_mutex_unlock pthread_mutex_init
pthread_mutex_destroy pthread_rwlock_rdlock pthread_rwlock_wrlock pthread_rwlock_tryrdlock
pthread_rwlock_trywrlock pthread_rwlock_unlock pthread_rwlock_init pthread_rwlock_destroy
pthread_spin_lock pthread_spin_trylock pthread_spin_unlock pthread_spin_init pthread_spin_destroy
sem_trywait sem_post sem_init sem_destroy pthread_cond_signal pthread_cond_broadcast
pthread_cond_init pthread_cond_destroy clock_gettime gettimeofday time getpid gettid
sigprocmask pthread_sigmask flockfile ftrylockfile'

fast='pthread_mutex_timedlock pthread_mutex_clocklock pthread_rwlock_timedrdlock
pthread_rwlock_timedwrlock pthread_rwlock_clockrdlock pthread_rwlock_clockwrlock sem_wait
sem_timedwait sem_clockwait pthread_cond_wait pthread_cond_timedwait pthread_cond_clockwait
pthread_barrier_wait pthread_barrier_init pthread_barrier_destroy pthread_once
pthread_testcancel pthread_setcanceltype sched_yield fputc putc _IO_putc putchar fgetc getc
_IO_getc getchar ungetc ftell ftello ftello64'

deep='getaddrinfo getnameinfo gethostbyname gethostbyname2 gethostbyaddr gethostbyname_r
gethostbyname2_r gethostbyaddr_r getservbyname getservbyport getservbyname_r getservbyport_r
gethostent gethostent_r getservent getservent_r res_query res_search res_querydomain res_send
res_mkquery res_nquery res_nsearch res_nquerydomain res_nsend res_nmkquery __res_query
__res_search __res_querydomain __res_send __res_mkquery __res_nquery __res_nsearch
__res_nquerydomain __res_nsend __res_nmkquery ftw ftw64 nftw nftw64 glob glob64 scandir
scandir64 scandirat scandirat64 popen pclose posix_spawn posix_spawnp fork freopen freopen64'

tmp_s=$out_s.$$.tmp
tmp_syms=$out_syms.$$.tmp
{
	echo '/* generated by scripts/agent-stubs.sh from src/agent/agent.map: do not edit */'
	echo '#include "agent_stub.h"'
	echo 'AGENT_STUB_BEGIN'
} >"$tmp_s"
: >"$tmp_syms"
for n in $names; do
	case " $(echo $skip) " in *" $n "*) continue ;; esac
	case " $(echo $leaf) $(echo $fast) " in
	*" $n "*)
		case " $(echo $leaf) " in
		*" $n "*) echo "AGENT_STUB_LEAF $n" >>"$tmp_s" ;;
		*) echo "AGENT_STUB $n" >>"$tmp_s" ;;
		esac
		;;
	*)
		case " $(echo $deep) " in
		*" $n "*) echo "AGENT_STUB_DEEP $n" >>"$tmp_s" ;;
		*) echo "AGENT_STUB_WIDE $n" >>"$tmp_s" ;;
		esac
		;;
	esac
	echo "$n spool_i_$n" >>"$tmp_syms"
done
echo 'AGENT_STUB_END' >>"$tmp_s"
mv "$tmp_syms" "$out_syms"
mv "$tmp_s" "$out_s"
