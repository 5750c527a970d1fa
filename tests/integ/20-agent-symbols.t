#!/bin/bash
# SPDX-License-Identifier: MIT
# 20-agent-symbols.t - the agent's dynamic symbol table is what DESIGN.md
# promises: it exports exactly the functions src/agent/agent.map lists (the
# interposed ones), unversioned so they bind to versioned references; it
# imports only a short, explicit list from libc/ld.so (no malloc family, no
# stdio, nothing lazily resolved); it uses initial-exec TLS only; and loaded
# without SPOOL_SHM_FD it changes nothing.
#
# Self-contained (needs only the agent and binutils), so it runs before the
# host tool is built.
set -u

if [ -z "${SPOOL_BUILD:-}" ]; then
	echo "1..0 # SKIP SPOOL_BUILD is not set (run through make check)"
	exit 0
fi
AGENT="$SPOOL_BUILD/libspool-agent.so"
MAP="$(cd "$(dirname "$0")/../.." && pwd)/src/agent/agent.map"
if [ ! -f "$AGENT" ]; then
	echo "1..0 # SKIP $AGENT is not built"
	exit 0
fi
if ! command -v readelf >/dev/null; then
	echo "1..0 # SKIP readelf (binutils) is not installed"
	exit 0
fi

# Everything the agent may import. Each entry is there for a reason:
#   startup only: getenv getauxval mmap munmap open read close readlink
#                 getpid getppid dlsym dlvsym pthread_key_create
#                 __register_atfork (pthread_atfork) strnlen __libc_stack_end
#   thread registration: gettid pthread_self pthread_setspecific
#                        madvise (prefault the ring in one call)
#   rare paths: syscall (futex wake once per watermark), sched_yield (lock
#               table claim contention), write (SPOOL_DEBUG), __errno_location
#   spool probe, startup only (agent_probe.c): dl_iterate_phdr (module load
#               biases) mprotect (trampoline pages, patching text) sigaction
#               (SIGTRAP for int3 probes) memcmp strcmp strrchr (checking the
#               bytes and module names before patching)
#   spool probe, custom handlers (agent_probe*.c): dlerror (why --handler's
#               object did not load) __sigsetjmp siglongjmp (the fault guard
#               around a custom handler: no system call) raise (a sent
#               SIGSEGV/SIGTRAP that is not ours, re-sent with its default)
#   raw system calls (agent_rr_dispatch.c): fork (a program's own fork
#               instruction, made through libc's fork so the agent's fork
#               handlers detach the child)
#   record/replay of pthread_cancel (agent_rr_cancel.c): pthread_testcancel
#               (a replay cancels where the recording was cancelled)
#               __pthread_register_cancel __pthread_unregister_cancel
#               __pthread_unwind_next (glibc's setjmp form of
#               pthread_cleanup_push around a recorded blocking call)
#               pthread_setcancelstate (a replayed wait that returned when
#               recorded acts on no cancellation)
#   probes in attach mode (agent_probe_got.c): sysconf (the page size),
#               strstr (which libraries are libc, ld.so, the vDSO), dlclose
#               (the reference a RTLD_NOLOAD dlopen took), sigaddset (the
#               mask a trap handler returns to)
#   the address-space layout (agent_rr.c): environ, __environ (where the
#               program's stack starts, compared between record and replay)
#   SIGEV_THREAD timers in sync mode (agent_rr_sevthread.c): pthread_detach
#               (the notifier thread the agent makes for a timer)
#   snapshots (agent_snap.c): getcontext setcontext (a parked thread's
#               context, restored in the copy), mremap, sigemptyset
#               sigfillset (the copy's masks), strchr strlen memchr
#               (/proc/self/maps lines), __rseq_offset __rseq_size (a recreated thread's rseq
#               area)
#   restoring a snapshot (agent_snap_restore.c): makecontext (the
#               context the restore runs on, off the fresh replay's stack)
#   name lookups (agent_rr_hostent.c, agent_rr_resolv.c): __h_errno_location
#               (h_errno: the thread's, set to the recorded one in a replay)
#   early clock readings (agent_rr_early.c): unsetenv, in the constructor only
#               (SPOOL_EARLY_IO leaves the program's environment)
#   divergence reports (agent_rr.c, rr_put_site): dladdr1 (the module and
#               symbol of the call site; the loader's lock, no malloc; only on
#               the way to a sync replay's divergence report)
#   compiler/runtime: memset memcpy __cxa_finalize and the weak
#                     _ITM_*/__gmon_start__ hooks
ALLOWED="getenv getauxval mmap munmap open read close readlink getpid getppid
dlsym dlvsym pthread_key_create __register_atfork strnlen __libc_stack_end
dirfd qsort gettid pthread_self pthread_setspecific madvise syscall sched_yield write
__errno_location memset memcpy __cxa_finalize
dl_iterate_phdr mprotect sigaction memcmp strcmp strrchr
dlerror __sigsetjmp siglongjmp raise fork
pthread_testcancel pthread_setcancelstate __pthread_register_cancel __pthread_unregister_cancel __pthread_unwind_next
sysconf strstr dlclose sigaddset environ __environ
getcontext setcontext makecontext mremap sigemptyset sigfillset strchr strlen memchr __rseq_offset __rseq_size
__h_errno_location unsetenv dladdr1 pthread_detach
_ITM_deregisterTMCloneTable _ITM_registerTMCloneTable __gmon_start__"
FORBIDDEN_RE='^(malloc|calloc|realloc|free|posix_memalign|aligned_alloc|memalign|valloc|printf|fprintf|sprintf|snprintf|vfprintf|vsnprintf|puts|fputs|fopen|fdopen|fclose|fwrite|fread|fflush|perror|exit|_exit|abort|__assert_fail|__tls_get_addr|pthread_mutex_.*|pthread_rwlock_.*|sem_.*|__stack_chk_fail)$'

echo "1..9"
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do echo "#   $l"; done
}

dyn="$(readelf -W --dyn-syms "$AGENT")" || { echo "Bail out! readelf failed"; exit 1; }

# Defined, global, in the dynamic table: what the agent exports.
exported="$(echo "$dyn" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}' |
	sed 's/@.*//' | sort -u)"
# The map's global: section.
wanted="$(sed -n '/global:/,/local:/p' "$MAP" | sed 's#/\*.*\*/##' | tr ';' '\n' |
	sed 's/global://; s/local://; s/^[[:space:]]*//; s/[[:space:]]*$//' | grep -v '^$' |
	sort -u)"

if [ -n "$wanted" ] && [ "$exported" = "$wanted" ]; then
	ok "exports exactly the $(echo "$wanted" | wc -l) symbols agent.map lists"
else
	not_ok "exports exactly what agent.map lists" \
		"only exported: $(comm -23 <(echo "$exported") <(echo "$wanted") | tr '\n' ' ')" \
		"only in map:   $(comm -13 <(echo "$exported") <(echo "$wanted") | tr '\n' ' ')"
fi

must="pthread_mutex_lock pthread_mutex_unlock pthread_cond_wait pthread_create sem_wait"
missing=""
for s in $must; do echo "$exported" | grep -qx "$s" || missing="$missing $s"; done
if [ -z "$missing" ]; then
	ok "the core interposers are exported ($must)"
else
	not_ok "the core interposers are exported" "missing:$missing"
fi

versioned="$(echo "$dyn" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $8 ~ /@/ {print $8}')"
if [ -z "$versioned" ]; then
	ok "exports carry no version (they bind to pthread_cond_wait@GLIBC_2.3.2 and the like)"
else
	not_ok "exports carry no version" "$versioned"
fi

notfunc="$(echo "$dyn" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $4 != "FUNC" {print $8}')"
if [ -z "$notfunc" ]; then
	ok "every export is a function (no data, no TLS exported)"
else
	not_ok "every export is a function" "$notfunc"
fi

imports="$(echo "$dyn" | awk '$7 == "UND" && $8 != "" {print $8}' | sort -u)"
bad_ver=""
unknown=""
forbidden=""
while read -r imp; do
	[ -n "$imp" ] || continue
	name="${imp%%@*}"
	if [ "$name" != "$imp" ]; then
		ver="${imp#*@}"
		case "$ver" in GLIBC_*) ;; *) bad_ver="$bad_ver $imp" ;; esac
	fi
	if echo "$name" | grep -Eq "$FORBIDDEN_RE"; then
		forbidden="$forbidden $name"
	fi
	case " $(echo $ALLOWED) " in *" $name "*) ;; *) unknown="$unknown $name" ;; esac
done <<<"$imports"

if [ -z "$forbidden" ]; then
	ok "no malloc family, stdio, exit/abort, lock functions or __tls_get_addr imported"
else
	not_ok "no forbidden imports" "imported:$forbidden"
fi
if [ -z "$unknown" ]; then
	ok "every import is on the allowlist ($(echo "$imports" | wc -l) imports)"
else
	not_ok "every import is on the allowlist" "not allowed:$unknown"
fi

needed="$(readelf -W -d "$AGENT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)"
bad_needed="$(echo "$needed" | grep -Ev '^(libc\.so\.6|libdl\.so\.2|libpthread\.so\.0|ld-linux-x86-64\.so\.2)$')"
if [ -z "$bad_needed" ] && [ -z "$bad_ver" ]; then
	ok "imports only from libc/libdl/libpthread/ld.so (GLIBC_* versions)"
else
	not_ok "imports only from libc/libdl/libpthread/ld.so" "needed: $bad_needed" \
		"versions: $bad_ver"
fi

dynsec="$(readelf -W -d "$AGENT")"
if echo "$dynsec" | grep -q 'STATIC_TLS' && ! echo "$dynsec" | grep -q 'TEXTREL' &&
	echo "$dynsec" | grep -q 'BIND_NOW'; then
	ok "initial-exec TLS (STATIC_TLS), no text relocations, bound at load (BIND_NOW)"
else
	not_ok "STATIC_TLS, no TEXTREL, BIND_NOW" "$(echo "$dynsec" | grep -E 'FLAGS|TEXTREL')"
fi

# Inert without SPOOL_SHM_FD: output and status unchanged, nothing printed.
out="$(env -u SPOOL_SHM_FD -u SPOOL_DEBUG LD_PRELOAD="$AGENT" sh -c 'echo hello; exit 7' 2>&1)"
rc=$?
if [ "$out" = "hello" ] && [ "$rc" = 7 ]; then
	ok "preloaded without SPOOL_SHM_FD the program runs unchanged"
else
	not_ok "preloaded without SPOOL_SHM_FD the program runs unchanged" "rc=$rc out=$out"
fi

[ "$fails" = 0 ]
