// SPDX-License-Identifier: MIT
/*
 * probe.c - `spool probe`: dynamic probes on an unmodified program.
 *
 *   spool probe -e SPEC [-e SPEC...] [OPTIONS] -- PROGRAM [ARGS]
 *   spool probe -p PID -e SPEC [--duration D] [OPTIONS]
 *   spool probe --list -e SPEC PROGRAM
 *
 * spool resolves the specs to functions (probe manager, src/probe), plans
 * each probe (jump or int3) and builds the trampolines, puts them in the
 * probes feature area, and runs the program with the agent, which patches
 * before main. At exit it writes the probe table into the trace ("probes")
 * and prints the function report on stderr; the program's stdout is left
 * alone and spool exits with the program's status.
 *
 * Attach mode (-p PID) runs the same collector without starting anything:
 * it stops the process with ptrace, loads the agent into it with dlopen and
 * has it place the probes (src/probe/probe_attach.c), lets it run for the
 * duration (or until Ctrl-C, or until it exits), then stops it again, has
 * the agent put every original byte back, and lets it go.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__aarch64__)
#include <sys/ptrace.h>
#endif
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../analyze/coverage.h"
#include "../analyze/funcs.h"
#include "../analyze/sysreport.h"
#include "../analyze/vars.h"
#include "../collect/session.h"
#include "../probe/probe.h"
#include "../trace/trace.h"
#include "../probe/probe_attach.h"
#include "../probe/probe_settle.h"
#include "../probe/probe_shm_send.h"
#include "../probe/probe_cache.h"
#include "../probe/probe_live.h"
#include "../probe/probe_session.h"
#include "../common/sys_area.h"
#include "../probe/sysprobe.h"
#include "../util/debugfile.h"
#include "../util/log.h"
#include "../util/options.h"
#include "../util/target.h"
#include "../collect/stream_send.h"
#include "cmd.h"
#include "run_opts.h"

#define PROBE_MAX_SPECS 64

/* The shared options spool probe takes (run_opts.c). */
/* The effective uid of pid (its /proc/PID/status: /proc/PID itself is
 * root's for a process that dropped root), or -1. */
static long probe_pid_euid(pid_t pid)
{
	char path[64], line[256];
	long r = -1, e = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld %ld", &r, &e) == 2)
			break;
	fclose(f);
	return e;
}

static void probe_usage(FILE *out);
static const struct run_opts_spec probe_run_opts = {
	.mask = RUN_OPT_OUTPUT | RUN_OPT_RING_SIZE | RUN_OPT_UNTIL_FIRST_EXIT | RUN_OPT_STREAM |
		RUN_OPT_NO_KEEP | RUN_OPT_JSON | RUN_OPT_LIMIT | RUN_OPT_CLOCK,
	.usage = probe_usage,
};

/* Codes of spool probe's long-only options. */
enum {
	PROBE_O_COMMANDS = RUN_OPT_LONG,
	PROBE_O_CONTROL,
	PROBE_O_DISABLED,
	PROBE_O_DEBUG_DIR,
	PROBE_O_EXITS,
	PROBE_O_HANDLER,
	PROBE_O_LIST_LIBRARY,
};

/* spool probe's own options, in the order --help lists them (the shared
 * ones follow them). */
static const struct run_opt_own probe_own_opts[] = {
    {"probe", required_argument, 'e', "  -e, --probe SPEC     what to probe (repeatable)\n"},
    {"pid", required_argument, 'p',
     "  -p, --pid PID        attach to a running process instead of starting one;\n"
     "                       its original code is restored when spool stops\n"},
    {"duration", required_argument, 'd',
     "  -d, --duration D     attach mode: stop after D (10s, 500ms, 2m; default:\n"
     "                       until Ctrl-C or until the process exits)\n"},
    {"commands", no_argument, PROBE_O_COMMANDS,
     "      --commands       attach mode: read commands on stdin while the program\n"
     "                       runs (the end of stdin detaches): list, add\n"
     "                       [--disabled] SPEC, delete ID..., disable ID...,\n"
     "                       enable ID..., detach; each answer ends with a line\n"
     "                       'ok ...' or 'error: ...'\n"},
    {"control", required_argument, PROBE_O_CONTROL,
     "      --control PATH   attach mode: the same commands on a unix socket made\n"
     "                       at PATH (in a directory only you can write)\n"},
    {"disabled", required_argument, PROBE_O_DISABLED,
     "      --disabled SPEC  like -e, but its probes are placed disabled: they\n"
     "                       record nothing until 'enable ID' (--commands)\n"},
    {"list", no_argument, 'l',
     "  -l, --list           print the probes a spec would place, and how (jump or\n"
     "                       int3, with the reason), then exit\n"},
    {"debug-dir", required_argument, PROBE_O_DEBUG_DIR,
     "      --debug-dir DIR  also look for separate debug files (DWARF and symbols\n"
     "                       of stripped files) under DIR: DIR/.build-id/xx/yy.debug\n"
     "                       or a .gnu_debuglink name (also: SPOOL_DEBUG_DIR)\n"},
    {"exits", required_argument, PROBE_O_EXITS,
     "      --exits HOW      how function exits are hooked: auto (default: patch\n"
     "                       each ret with a jump; where one would need an int3,\n"
     "                       swap the function's return address instead: method\n"
     "                       retaddr in --list), patch (never swap: int3 where\n"
     "                       no jump fits), retaddr (swap in every function)\n"},
    {"handler", required_argument, PROBE_O_HANDLER,
     "      --handler SO     custom pre/post/error handlers, a shared object\n"
     "                       (include/spool/probe.h) the agent loads in PROGRAM;\n"
     "                       stored in the probe library as NAME (SO's file name\n"
     "                       without .so) when it is not there\n"
     "      --handler NAME   the probe NAME of the library\n"},
    {"list-library", no_argument, PROBE_O_LIST_LIBRARY,
     "      --list-library   list the probe library (standard and user probes)\n"},
    {"quiet", no_argument, 'q', "  -q, --quiet          summary line only, no report\n"},
    {"help", no_argument, 'h', "  -h, --help           show this help\n"},
};

#define PROBE_NOWN (sizeof(probe_own_opts) / sizeof(probe_own_opts[0]))

static void probe_usage(FILE *out)
{
	fprintf(out,
		"usage: spool probe -e SPEC [-e SPEC...] [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       spool probe -p PID -e SPEC [-e SPEC...] [--duration D] [OPTIONS]\n"
		"       spool probe -p PID [-e SPEC...] --commands | --control PATH [OPTIONS]\n"
		"       spool probe --list -e SPEC [-e SPEC...] PROGRAM\n"
		"\n"
		"Probe function entries and exits of PROGRAM and the libraries it loads,\n"
		"without rebuilding it, and print a function report (calls, total and self\n"
		"time, min/avg/max, callers) on stderr when it exits.\n"
		"\n"
		"specs:\n"
		"  func:GLOB            functions of PROGRAM whose name matches GLOB\n"
		"  func:LIB:GLOB        functions of the libraries whose file name matches\n"
		"                       LIB (e.g. func:libz.so*:deflate*)\n"
		"  block:[LIB:]GLOB     count every basic block of the matched functions\n"
		"  branch:[LIB:]GLOB    count each conditional branch taken / not taken\n"
		"  block-exit:[LIB:]GLOB\n"
		"                       count the passes at each block's last instruction\n"
		"  jump:[LIB:]GLOB      count the passes at every unconditional jump and ret\n"
		"                       (goto, break, continue, return)\n"
		"  label:[LIB:]FUNC:NAME\n"
		"                       count the passes at a label (DWARF; NAME a glob)\n"
		"  sys:cpu | sys:io | sys:mem | sys:all\n"
		"                       per-thread CPU time; read/write calls and bytes per\n"
		"                       descriptor kind; malloc/free calls, bytes and live\n"
		"                       bytes, resident set over time (spool report --sys)\n"
		"  var:TYPE:NAME@[LIB:]FUNC[:entry|:exit|:LINE]\n"
		"                       a variable's value at a point (TYPE: char, int,\n"
		"                       long, float, double, longdouble, or auto)\n"
		"  assert:EXPR@[LIB:]FUNC[:entry|:exit|:LINE]\n"
		"                       a C-like condition on variables: true/false per hit\n"
		"  time:[LIB:]FUNC | time:A..B\n"
		"                       durations of calls, or from point A to B\n"
		"  args:[LIB:]GLOB      each scalar parameter at the entry and the return\n"
		"                       value at each ret, by DWARF (x (int) at f:entry,\n"
		"                       return (int) at f:exit)\n"
		"  args:[LIB:]GLOB:TYPES\n"
		"                       the same by the x86-64 ABI without DWARF, TYPES as\n"
		"                       int,double,char*->long\n"
		"                       (var, assert, time, args: spool report --vars)\n"
		"                       (block, branch, jump, label: a coverage summary at exit;\n"
		"                       spool report --coverage -o app.info for lcov)\n"
		"\n"
		"options:\n");
	/* (the shared options before the last row, -h) */
	run_opts_own_usage(out, probe_own_opts, PROBE_NOWN - 1);
	run_opts_usage(out, &probe_run_opts);
	run_opts_own_usage(out, probe_own_opts + PROBE_NOWN - 1, 1);
	fprintf(out,
		"\n"
		"Exit status: the program's (128+N if signal N killed it); 4 if that is 0 but\n"
		"the trace is incomplete (events lost, the disk full; the summary line says\n"
		"how many); 127 if PROGRAM is not found, 126 if it is not executable; 1 if a\n"
		"handler failed or nothing could be probed.\n"
		"\n"
		"Plans of func:, block: and branch: specs are cached by build id in\n"
		"$XDG_CACHE_HOME/spool/plans (~/.cache/spool/plans); SPOOL_PLAN_CACHE=0\n"
		"turns the cache off. Plans unused for 30 days are removed, then the least\n"
		"recently used over 64 MB (SPOOL_PLAN_CACHE_MAX=BYTES).\n"
		"\n"
		"Later: spool report --functions DIR. See doc/probe.md.\n");
}

/* "10s", "500ms", "2m", "1h", a bare number is seconds. */
static int probe_parse_duration(const char *s, uint64_t *ms)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v <= 0)
		return -EINVAL;
	if (!*end || !strcmp(end, "s"))
		v *= 1000;
	else if (!strcmp(end, "m"))
		v *= 60000;
	else if (!strcmp(end, "h"))
		v *= 3600000;
	else if (strcmp(end, "ms"))
		return -EINVAL;
	if (v < 1 || v > 1e12)
		return -EINVAL;
	*ms = (uint64_t)v;
	return 0;
}

static volatile sig_atomic_t probe_stop_signal;

static void probe_on_stop(int sig)
{
	probe_stop_signal = sig;
}

static uint64_t probe_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Alive and not a zombie waiting for its parent. A zombie's wait status
 * (the 52nd field of its stat, readable until its parent reaps it) goes
 * to *status when status is not NULL; it is left alone otherwise. */
static int probe_pid_state(pid_t pid, int *status)
{
	char fn[64], buf[2048], *p, *end;
	ssize_t n;
	long v;
	int fd;

	snprintf(fn, sizeof(fn), "/proc/%d/stat", (int)pid);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	if (p[2] != 'Z' && p[2] != 'X')
		return 1;
	/* p + 2 is field 3 (state): field 52 is 49 fields on */
	for (int f = 3; f < 52 && p; f++)
		p = strchr(p + 1, ' ');
	if (p && status) {
		v = strtol(p + 1, &end, 10);
		if (end != p + 1 && v >= 0 && v <= 0xffff)
			*status = (int)v;
	}
	return 0;
}

static int probe_pid_alive(pid_t pid)
{
	return probe_pid_state(pid, NULL);
}

/* int3 probes the agent placed (its status is back in m). */
static size_t probe_int3_placed(const struct probe_mgr *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ndefs; i++)
		n += m->defs[i].registered && m->defs[i].status == PROBE_S_PATCHED &&
		     m->defs[i].method == PROBE_M_INT3;
	return n;
}

/* spool probe -p: the attached process is gone. Say how, as far as spool
 * can know (it is not its parent): int3 probes were in, and a thread that
 * blocks SIGTRAP with its own syscall instruction (which the agent cannot
 * see) is killed by its first hit; the user must hear it was spool.
 * Returns the status spool exits with: the program's when it is known not
 * to be 0, else 0. */
static int probe_attach_gone(pid_t pid, int wstatus, uint32_t shm_state, size_t int3_placed)
{
	int sig = wstatus >= 0 && WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;

	if (wstatus >= 0 && !sig) {
		log_info("pid %d exited with status %d", (int)pid, WEXITSTATUS(wstatus));
		return WEXITSTATUS(wstatus);
	}
	if (sig == SIGTRAP && int3_placed) {
		log_err("pid %d was killed by SIGTRAP at an int3 probe: a thread had SIGTRAP "
			"blocked for real (a mask set by the program's own syscall instruction, "
			"which spool cannot see; doc/probe.md). The trace holds every event "
			"recorded before", (int)pid);
		return 128 + sig;
	}
	if (sig) {
		log_err("pid %d was killed by signal %d (%s)", (int)pid, sig, strsignal(sig));
		return 128 + sig;
	}
	if (!(shm_state & SHM_STATE_EXIT_RAN)) {
		if (int3_placed)
			log_warn("pid %d ended without running its exit handlers: it was killed by a "
				"signal (or called _exit); spool, not its parent, cannot see which. If "
				"its status was 133 (SIGTRAP), a thread had SIGTRAP blocked for real (a "
				"mask set by its own syscall instruction) and hit one of the %zu int3 "
				"probes: doc/probe.md. The trace holds every event recorded before",
				(int)pid, int3_placed);
		else
			log_warn("pid %d ended without running its exit handlers (killed by a signal, "
				 "or it called _exit)", (int)pid);
	}
	return 0;
}

/* Whether pid is still alive once a failure had time to show: a process
 * killed while stopped under ptrace loses its memory map (so the lookup of
 * its libc failed) before /proc says it is a zombie. Up to 200 ms. */
static int probe_pid_alive_settled(pid_t pid)
{
	for (int i = 0; i < 20; i++) {
		struct timespec ts = {0, 10000000};

		if (!probe_pid_alive(pid))
			return 0;
		nanosleep(&ts, NULL);
	}
	return 1;
}

static const char *probe_attach_why(int rc, pid_t pid)
{
	switch (rc) {
	case -ESRCH:
		return "the process exited (or does not exist)";
	case -EPERM:
		return "not allowed to trace it (another tracer, a kernel thread, "
		       "kernel.yama.ptrace_scope, or another user's process)";
	case -EBUSY:
		return "a thread stays inside the code a probe would replace";
	default:
		return strerror(-rc);
	}
}

/*
 * Syscall user dispatch in every stopped thread (on, after the commit) or
 * out of it (off, before the detach). With int3 probes in, the agent keeps
 * SIGTRAP out of the kernel's masks a program sets through libc; a mask set
 * by the program's own syscall instruction (inline assembly) reaches it
 * only through dispatch, which is per thread and only the thread itself can
 * turn on: spool makes each thread call the agent. A thread whose kernel
 * mask blocks SIGSYS is left without it (a dispatched call would kill it).
 * Off: a thread whose view blocks SIGSYS gets it blocked for real.
 */
static void probe_attach_dispatch(struct probe_attach *a, pid_t pid, int on)
{
	unsigned n_on = 0, n_skip = 0;
	int64_t ret = 0;

	if (!a->fn_dispatch)
		return;
	for (size_t i = 0; i < a->ntids; i++) {
		pid_t tid = a->tids[i];

		if (!a->stopped[i])
			continue;
		if (probe_attach_call_in(a, tid, a->fn_dispatch, NULL, on, &ret) < 0)
			continue;
		ret = (int32_t)ret;
		if (!on) {
			if (ret == 1 && probe_attach_block_sig(a, tid, SIGSYS) < 0)
				log_debug("pid %d: thread %d: SIGSYS not blocked again", (int)pid,
					  (int)tid);
			continue;
		}
		if (ret == -ENOSYS)
			log_warn("pid %d: int3 probes are in and syscall user dispatch is not "
				 "(a kernel before 5.11, or SPOOL_NO_DISPATCH in its environment): "
				 "a thread that blocks SIGTRAP with its own syscall instruction "
				 "would be killed at its next int3 hit",
				 (int)pid);
		if (ret == -ENOENT || ret == -ENOSYS)
			return; /* no int3 probe in, or no dispatch: nothing set up */
		if (ret < 0)
			n_skip++;
		else
			n_on++;
	}
	if (on)
		log_debug("pid %d: syscall user dispatch on in %u threads, %u left without it "
			  "(SIGSYS blocked)",
			  (int)pid, n_on, n_skip);
}

/* Tests only (tests/integ/342): SPOOL_TEST_SHM_WAIT=FILE makes spool say
 * the name of the socket that hands its shared memory over and wait for
 * FILE (10 s at most) before the target connects, so that another process
 * can connect first and show it gets nothing (probe_shm_send.c). The target
 * stays stopped meanwhile. */
static void probe_shm_test_wait(const char *name)
{
	const char *go = getenv("SPOOL_TEST_SHM_WAIT");

	if (!go)
		return;
	fprintf(stderr, "spool: test: shared memory socket %s\n", name);
	for (int i = 0; i < 200 && access(go, F_OK); i++)
		usleep(50000);
}

/* Stop the target, load the agent, place the probes, let it go. On failure
 * every thread has been let go and nothing was patched. */
static int probe_attach_in(struct probe_attach *a, struct shm_host *h, pid_t pid,
			   const char *agent)
{
	struct probe_area_hdr *ah = shm_host_ext(h, SHM_EXT_PROBES), hc;
	struct probe_area_probe *ps;
	const char *kill_at = getenv("SPOOL_TEST_ATTACH_KILL"); /* tests: exit mid-attach */
	uint64_t *lo = NULL, *hi = NULL;
	char shm[128];
	int64_t ret = 0;
	size_t n = 0;
	int rc;

	rc = probe_attach_stop(a, pid);
	if (rc < 0) {
		log_err("cannot attach to pid %d: %s", (int)pid, probe_attach_why(rc, pid));
		goto out_resume;
	}
	/* The agent's dlopen is called in the main thread: not while it is
	 * in the dynamic loader (a program still starting, a dlopen under
	 * way: a call there faulted in a libc not ready yet and left the
	 * program hung, probe_attach.c). Let go and stopped again, 10 ms
	 * apart, 5 s at most; then refused, nothing called in it. */
	for (int tries = 0; probe_attach_in_loader(a, pid); tries++) {
		if (tries == 500) {
			log_err("cannot attach to pid %d: its main thread is still in the dynamic "
				"loader after 5 s (starting up, or in a dlopen); nothing was "
				"changed in it, try again",
				(int)pid);
			rc = -EBUSY;
			goto out_resume;
		}
		if (tries == 0)
			log_debug("pid %d: in the dynamic loader, waiting for it to leave", (int)pid);
		probe_attach_resume(a);
		usleep(10000);
		rc = probe_attach_stop(a, pid);
		if (rc < 0) {
			log_err("cannot attach to pid %d: %s", (int)pid,
				probe_attach_why(rc, pid));
			goto out_resume;
		}
	}
	/* glibc's pthread_create blocks every signal in the creating thread
	 * around its clone, and the new thread starts so until its setup is
	 * done: a thread stopped there would keep the int3 probes out for
	 * the whole session (below). A mask that blocks SIGTRAP for a few
	 * milliseconds is let go and the process stopped again (20 times at
	 * most: a program that keeps SIGTRAP blocked gets the refusal). */
	for (int tries = 0; tries < 20; tries++) {
		pid_t tid;

		if (!probe_attach_trap_blocked(a, &tid))
			break;
		probe_attach_resume(a);
		usleep(10000);
		rc = probe_attach_stop(a, pid);
		if (rc < 0) {
			log_err("cannot attach to pid %d: %s", (int)pid,
				probe_attach_why(rc, pid));
			goto out_resume;
		}
	}
	if (kill_at && !strcmp(kill_at, "stopped"))
		kill(pid, SIGKILL);
	{
		pid_t t1 = 0, t2 = 0;
		int shared = probe_attach_shared_tls(a, &t1, &t2);

		if (shared > 0)
			log_warn("pid %d: %d thread%s share%s a thread pointer with another (thread "
				 "%d with %d: made by the program's own clone, without TLS of "
				 "their own): their probe hits are not recorded (counted as "
				 "lost), the thread whose TLS it is keeps its own",
				 (int)pid, shared, shared == 1 ? "" : "s", shared == 1 ? "s" : "",
				 (int)t1, (int)t2);
	}
	rc = probe_attach_load_agent(a, agent);
	if (rc < 0)
		goto out_fail;
	snprintf(shm, sizeof(shm), "/proc/%d/fd/%d", (int)getpid(), h->fd);
	rc = probe_attach_call(a, a->fn_prepare, shm, &ret);
	/* The agent's entry points return an int: only eax is theirs (the
	 * upper half of rax is whatever was there; -EBUSY read as a 64-bit
	 * value looked like success). */
	ret = (int32_t)ret;
	if (!rc && ret == -EACCES) {
		/* /proc/SPOOL/fd/N needs ptrace access to spool, which a
		 * daemon that dropped root has not: the descriptor handed
		 * over a socket instead (probe_shm_send.c; the failed open
		 * changed nothing in the agent) */
		struct probe_shm_send *snd = NULL;
		char name[96];
		int src = probe_shm_send_start(&snd, h->fd, pid, name, sizeof(name));

		if (src == 0) {
			probe_shm_test_wait(name);
			snprintf(shm, sizeof(shm), "unix:%s", name);
			rc = probe_attach_call(a, a->fn_prepare, shm, &ret);
			ret = (int32_t)ret;
			if (probe_shm_send_end(snd))
				log_debug("pid %d: spool's shared memory handed over %s", (int)pid,
					  name);
		} else {
			log_debug("pid %d: no socket to hand the shared memory over: %s", (int)pid,
				  strerror(-src));
		}
	}
	if (!rc && ret == -EBUSY) {
		/* spool_agent_probe_prepare found the agent already recording:
		 * nothing was changed in the program */
		log_err("pid %d already has spool's agent recording in it (it was started under "
			"spool, or an earlier spool probe -p attached to it): spool attaches to a "
			"process once; restart it to probe it again",
			(int)pid);
		rc = -EBUSY;
		goto out_resume;
	}
	if (!rc && ret < 0) {
		long euid = ret == -EACCES ? probe_pid_euid(pid) : -1;

		if (euid >= 0 && (uid_t)euid != geteuid())
			/* neither /proc/SPOOL/fd/N nor the socket (which a
			 * seccomp filter or another network namespace can
			 * keep from it) */
			log_err("pid %d: the agent could not start: it runs as uid %ld, spool as "
				"uid %ld, and could neither open spool's shared memory (through "
				"/proc/%d/fd) nor receive it over a Unix socket (another network "
				"namespace, or a filter on its system calls): run it as root, or "
				"under spool from its start",
				(int)pid, euid, (long)geteuid(), (int)getpid());
		else
			log_err("pid %d: the agent could not start: %s", (int)pid,
				strerror((int)-ret));
		rc = (int)ret;
		goto out_fail;
	}
	if (rc < 0)
		goto out_fail;
	if (kill_at && !strcmp(kill_at, "prepared"))
		kill(pid, SIGKILL);
	/* The area's header is copied and checked first: the target can
	 * rewrite it, and spool writes the probes' status below. */
	if (probe_area_check(ah, h->ext_size[SHM_EXT_PROBES], &hc) < 0) {
		log_err("pid %d overwrote spool's probe area", (int)pid);
		rc = -EPROTO;
		goto out_undo;
	}
	ps = (void *)((char *)ah + hc.probes_off);
	/* A blocked synchronous SIGTRAP kills: with a thread blocking it, an
	 * int3 probe (an aarch64 BRK, flagged by the agent) would kill the
	 * process (in attach mode the agent cannot keep SIGTRAP unblocked: it
	 * is not interposed). Those stay out. */
	{
		pid_t tid;
		uint32_t dropped = 0;

		if (probe_attach_trap_blocked(a, &tid)) {
			for (uint32_t i = 0; i < hc.nprobes; i++)
				if (ps[i].status == PROBE_S_READY &&
				    (ps[i].method == PROBE_M_INT3 ||
				     (ps[i].flags & PROBE_F_A64_BRK))) {
					ps[i].status = PROBE_S_NO_TRAP;
					dropped++;
				}
			if (dropped)
				log_warn("pid %d: thread %d blocks SIGTRAP: %u int3 probes not "
					 "placed (a hit would kill the process)",
					 (int)pid, (int)tid, dropped);
		}
	}
	/* No thread may be inside a range about to be replaced. */
	lo = calloc(hc.nprobes + 1, sizeof(*lo));
	hi = calloc(hc.nprobes + 1, sizeof(*hi));
	if (!lo || !hi) {
		rc = -ENOMEM;
		goto out_undo;
	}
	for (uint32_t i = 0; i < hc.nprobes; i++)
		if (ps[i].status == PROBE_S_READY) {
			lo[n] = ps[i].runtime_patch;
			hi[n++] = ps[i].runtime_patch + ps[i].patch_len;
		}
	rc = probe_attach_leave_ranges(a, lo, hi, n);
	if (rc < 0)
		goto out_undo;
	rc = probe_attach_call(a, a->fn_commit, NULL, &ret);
	if (rc < 0)
		goto out_fail;
	probe_attach_dispatch(a, pid, 1);
	rc = 0;
	goto out_resume;
out_undo:
	probe_attach_call(a, a->fn_detach, NULL, &ret);
	/* aarch64: nothing was committed, no BRK of ours can have trapped:
	 * SIGTRAP and the GOT slots back at once (probe_attach_release) */
	if (a->fn_release)
		probe_attach_call(a, a->fn_release, NULL, &ret);
out_fail:
	if (rc == -ESRCH || !probe_pid_alive_settled(pid)) {
		log_err("pid %d exited while the probes were being inserted", (int)pid);
		rc = -ESRCH;
	} else {
		log_err("attaching to pid %d failed: %s", (int)pid, probe_attach_why(rc, pid));
	}
out_resume:
	probe_attach_resume(a);
	free(lo);
	free(hi);
	return rc;
}

/* How long the detach waits for the probe hits in flight (probe_settle.c). */
#define PROBE_SETTLE_MS 500
/* The release (aarch64's second stop): asked up to this many times, the
 * program let run this long between two (5 s in all). */
#define PROBE_RELEASE_TRIES 100
#define PROBE_RELEASE_NAP_US 50000

/* The int3 probes are out: the threads that blocked SIGTRAP meanwhile
 * (the agent kept it out of their kernel mask) get it blocked. Each
 * thread, with the ip it stopped at: one about to return from a signal
 * handler gets them in the mask that return installs. Every thread
 * stopped. */
static void probe_attach_give_back(struct probe_attach *a, pid_t pid,
				   const struct probe_area_hdr *area)
{
	if (!area || !area->detached)
		return;
	log_debug("pid %d: detached %u, %u threads blocked SIGTRAP meanwhile", (int)pid,
		  area->detached, area->trap_views);
	if (a->fn_thread_out) {
		int n = probe_attach_threads_out(a);

		if (n < 0)
			log_debug("pid %d: a thread's mask not set again: %s", (int)pid,
				  strerror(-n));
		else
			log_debug("pid %d: %d threads got SIGTRAP or SIGSYS blocked again",
				  (int)pid, n);
		return;
	}
	for (uint32_t i = 0; i < area->trap_views && i < PROBE_TRAP_VIEWS; i++)
		if (probe_attach_block_trap(a, area->trap_view_tid[i]) < 0)
			log_debug("pid %d: thread %d: SIGTRAP not blocked again", (int)pid,
				  (int)area->trap_view_tid[i]);
}

/*
 * aarch64's second stop of the detach (the agent has
 * spool_agent_probe_release). At the first, every BRK word was put back,
 * but a thread stopped inside the agent's BRK handler returns to an
 * out-of-line slot whose `BRK #0x5a2` needs the handler, and one stopped
 * on such a BRK, or with the trap of a probe's BRK it hit just before the
 * stop still pending in the kernel, traps when it runs: with SIGTRAP given
 * back to the program at once, the kernel's default action killed the
 * process (exit 133; 2 detaches in 5, tests/arm64/283). So the program ran
 * on with the handler in, and now, every thread stopped again and none of
 * them about to trap or in the agent's code (probe_attach_trap_busy), the
 * agent gives SIGTRAP and the GOT slots of the signal calls back (it says
 * -EBUSY while a handler runs in a thread), and the threads that blocked
 * SIGTRAP meanwhile get it blocked for real. Else the program runs a
 * little more and is asked again; when it never settles the handler stays
 * (it takes only the traps of spool's slots and gives every other SIGTRAP
 * to the program's disposition), said.
 */
static void probe_attach_release(struct probe_attach *a, pid_t pid,
				 const struct probe_area_hdr *area, const char *agent)
{
	const char *why = "";
	pid_t tid = 0;
	int64_t ret = 0;
	int rc = 0, tries;

	for (tries = 0; tries < PROBE_RELEASE_TRIES; tries++) {
		if (tries)
			usleep(PROBE_RELEASE_NAP_US);
		if (!probe_pid_alive(pid))
			return;
		rc = probe_attach_stop(a, pid);
		if (rc < 0) {
			probe_attach_resume(a);
			break;
		}
		ret = 0;
		if (!probe_attach_trap_busy(a, agent, &tid, &why)) {
			rc = probe_attach_call(a, a->fn_release, NULL, &ret);
			ret = (int32_t)ret; /* an int: only w0 is the agent's */
			if (!rc && ret == 0) {
				probe_attach_give_back(a, pid, area);
				probe_attach_resume(a);
				log_debug("pid %d: SIGTRAP given back to the program (%d stop%s)",
					  (int)pid, tries + 1, tries ? "s" : "");
				return;
			}
			tid = pid;
			why = "is in the agent's SIGTRAP handler";
		}
		probe_attach_resume(a);
		if (rc < 0 || (ret < 0 && ret != -EBUSY))
			break;
		log_debug("pid %d: thread %d %s: SIGTRAP stays spool's, the program runs on", (int)pid,
			  (int)tid, why);
	}
	if (rc < 0 && !probe_pid_alive(pid))
		return;
	if (rc < 0 || ret < 0)
		log_warn("pid %d: SIGTRAP not given back to the program (%s): spool's handler "
			 "stays in it, taking only the traps of its own code and giving every "
			 "other SIGTRAP to the program's disposition",
			 (int)pid, strerror(rc < 0 ? -rc : (int)-ret));
	else
		log_warn("pid %d: SIGTRAP not given back to the program: thread %d %s after "
			 "%d tries; spool's handler stays in it, taking only the traps of its "
			 "own code and giving every other SIGTRAP to the program's disposition",
			 (int)pid, (int)tid, why, tries);
}

/* Stop it again, restore every original byte, let it go; then wait for the
 * hits its threads were writing to be committed (probe_settle.c), so that
 * the collector's last drain finds them whole; then, on aarch64, give
 * SIGTRAP back (probe_attach_release). */
static void probe_attach_out(struct probe_attach *a, pid_t pid, struct shm_host *h,
			     const char *agent)
{
	struct probe_area_hdr *area = shm_host_ext(h, SHM_EXT_PROBES);
	struct probe_settle *settle = calloc(1, sizeof(*settle));
	pid_t in_agent[PROBE_SETTLE_MAX];
	size_t n_agent = 0;
	uint32_t left;
	int64_t ret = 0;
	int rc;

	if (!probe_pid_alive(pid))
		goto out_free;
	rc = probe_attach_stop(a, pid);
	if (!rc)
		probe_attach_dispatch(a, pid, 0);
	if (!rc)
		rc = probe_attach_call(a, a->fn_detach, NULL, &ret);
	/* The threads stopped in the agent's code, and their rings as they
	 * are now, with the agent no longer recording: (the call above ran
	 * in the main thread and came back where it stopped) */
	if (!rc && settle) {
		n_agent = probe_attach_threads_in(a, agent, in_agent, PROBE_SETTLE_MAX);
		probe_settle_note(settle, h, in_agent, n_agent);
	}
	/* x86-64: SIGTRAP back now (aarch64: at the release, below) */
	if (!rc && !a->fn_release)
		probe_attach_give_back(a, pid, area);
	if (rc < 0 && probe_pid_alive(pid))
		log_err("pid %d: could not restore its code: %s", (int)pid,
			probe_attach_why(rc, pid));
	else if (rc < 0)
		log_info("pid %d exited while its code was being restored", (int)pid);
	probe_attach_resume(a);
	if (rc < 0)
		goto out_free;
	if (settle) {
		left = probe_settle_wait(settle, h, PROBE_SETTLE_MS);
		log_debug("pid %d: %zu threads were in the agent's code at the detach; %u "
			  "events still in flight after the wait (counted lost)",
			  (int)pid, n_agent, left);
	}
	if (a->fn_release)
		probe_attach_release(a, pid, area, agent);
out_free:
	free(settle);
}

/* What spool probe prints at the end: the function report for func:
 * probes, the coverage summary for block: and branch: probes. */
static void probe_reports(const char *dir, const struct probe_mgr *m, const struct funcs_opts *fo)
{
	struct coverage_opts co = {.limit = fo->limit};

	if (probe_mgr_has_func(m))
		funcs_report_dir(dir, fo, stderr);
	if (probe_mgr_has_cfg(m))
		coverage_report_dir(dir, &co, stderr);
	if (probe_mgr_has_vars(m)) {
		struct vars_opts vo = {.json = fo->json, .limit = fo->limit};

		vars_report_dir(dir, &vo, stderr);
	}
}

/* spool probe -p --commands / --control: where commands come from. */
struct probe_live_opts {
	int use_stdin;
	const char *ctl_path;
};

static int probe_attach_session(const struct session_opts *so, struct probe_run *pr, pid_t pid,
				uint64_t duration_ms, const struct funcs_opts *fo,
				const struct probe_live_opts *lo)
{
	int live_on = lo->use_stdin || lo->ctl_path;
	struct probe_live live = {.listen_fd = -1};
	struct sigaction sa = {.sa_handler = probe_on_stop}, old_int, old_term, old_hup;
	uint64_t ext[SHM_MAX_EXT] = {0}, start, last_flush;
	struct shm_host h = {.fd = -1};
	struct trace_writer *w = NULL;
	struct collector *col = NULL;
	struct collector_stats st = {0};
	struct trace_loss loss = {0};
	struct probe_attach *a = NULL;
	struct trace_clock clk;
	char agent[PATH_MAX], summary[PATH_MAX + 512];
	int rc, status = 1, exited = 0, len, wstatus = -1, prog_status = 0;
	size_t placed = 0, int3_placed = 0, njump = 0, nint3 = 0;
	char of_planned[48];

	rc = session_find_agent(agent, sizeof(agent));
	if (rc < 0) {
		log_err("cannot find libspool-agent.so next to spool or in ../lib/spool "
			"(set SPOOL_AGENT to its path)");
		return 1;
	}
	if (session_prepare_trace_dir(so->trace_dir, 1) < 0)
		return 1; /* said why */
	a = calloc(1, sizeof(*a));
	if (!a)
		return 1;
	rc = trace_clock_calibrate(&clk, 10000);
	if (rc < 0)
		goto out_free;
	ext[SHM_EXT_PROBES] = probe_mgr_area_size(pr->m);
	/* sys:io, sys:mem: the counters the agent's interposers add to, which
	 * the program's GOT slots reach while attached (agent_probe_got.c) */
	if ((pr->sys_what & ~SYS_W_CPU) || live_on) /* live_on: for an add sys:... */
		ext[SHM_EXT_SYS] = sysprobe_area_size(so->max_rings);
	if (live_on) /* room for the trampolines of probes added later */
		ext[SHM_EXT_PROBES] = ((ext[SHM_EXT_PROBES] + 4095) & ~4095ull) + PROBE_LIVE_ROOM;
	rc = shm_host_create_ext(&h, so->ring_bytes, so->max_rings, so->max_procs, 0, ext);
	if (rc < 0) {
		log_err("cannot create the shared memory: %s", strerror(-rc));
		goto out_free;
	}
	rc = trace_writer_create(&w, so->trace_dir, &clk, 1);
	if (rc < 0) {
		log_err("cannot create trace %s: %s", so->trace_dir, strerror(-rc));
		goto out_shm;
	}
	stream_send_begin(trace_writer_dir(w), so->trace_dir);
	rc = collector_new(&col, &h, w);
	if (rc < 0)
		goto out_writer;
	h.ctl->features =
	    SHM_FEAT_PROBES | ((pr->sys_what & ~SYS_W_CPU) || live_on ? SHM_FEAT_SYS : 0);
	collector_use_packets(col, SHM_FEAT_PROBES);
	/* --clock=none: before the agent is loaded, which reads the flags */
	if (so->shm_flags & SHM_F_UNTIMED) {
		h.ctl->flags |= SHM_F_UNTIMED;
		rc = trace_writer_set_untimed(w);
		if (rc < 0) {
			log_err("cannot write the metadata of trace %s: %s", so->trace_dir,
				strerror(-rc));
			goto out_collector;
		}
	}
	/* sys:cpu: sampled from /proc/PID/task */
	pr->sys_pid = pr->sys_what || live_on ? pid : 0;
	rc = probe_run_prepare(pr, &h, w);
	/* --commands: the counters' area ready for an add sys:... (the
	 * agent finds it when it is prepared), nothing sampled yet */
	if (!rc && live_on && !pr->sys)
		rc = sysprobe_start(&pr->sys, 0, &h, pid);
	if (rc < 0)
		goto out_collector;
	((struct probe_area_hdr *)shm_host_ext(&h, SHM_EXT_PROBES))->attach = 1;

	probe_stop_signal = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	/* the command inputs first: a control socket spool cannot make must
	 * not cost the program its one attach */
	live.m = pr->m;
	if (live_on && probe_live_open(&live, lo->use_stdin, lo->ctl_path) < 0) {
		pr->attach_failed = 1;
		goto out_signals;
	}
	rc = probe_attach_in(a, &h, pid, agent);
	if (rc < 0) {
		pr->attach_failed = 1;
		goto out_signals;
	}
	if (probe_mgr_read_area(pr->m, shm_host_ext(&h, SHM_EXT_PROBES),
				h.ext_size[SHM_EXT_PROBES]) < 0)
		log_warn("the program overwrote spool's probe area: the probes' status and counts "
			 "are unknown");
	/* counted as "N probes (J jump, I int3)" counted them before the
	 * attach (probe_run_count): a probe that runs in another's
	 * trampoline (--list: "shared") is not one more; restic's
	 * x_cgo_unsetenv exit made that "22 probes", then "23 placed" */
	placed = probe_run_placed(pr->m);
	probe_run_count(pr->m, &njump, &nint3);
	int3_placed = probe_int3_placed(pr->m);
	if (live_on) {
		live.a = a;
		live.pid = pid;
		live.area = shm_host_ext(&h, SHM_EXT_PROBES);
		live.area_size = h.ext_size[SHM_EXT_PROBES];
		live.next_off = (probe_mgr_area_size(pr->m) + 4095) & ~4095ull;
		live.col = col;
		live.pr = pr; /* add sys:... */
		live.sys_on = pr->sys_what;
		live.trace_dir = trace_writer_dir(w); /* the partial trace, until renamed */
	}
	if (!placed && !live_on && (pr->m->ndefs || !pr->sys_what)) {
		/* Nothing to wait for: say so, give the process back now. */
		log_err("pid %d: no probe could be placed (the warnings above say why); detached",
			(int)pid);
		probe_attach_out(a, pid, &h, agent);
		status = 1;
		goto out_signals;
	}
	snprintf(of_planned, sizeof(of_planned), "of %zu ", njump + nint3);
	if (!so->quiet)
		log_info("attached to pid %d: %zu %sprobes placed%s%s%s", (int)pid, placed,
			 placed < njump + nint3 ? of_planned : "", lo->use_stdin ? "; commands on stdin ('help')" : "",
			 lo->ctl_path ? "; commands on " : "", lo->ctl_path ? lo->ctl_path : "");
	if (!so->quiet && !duration_ms && !lo->use_stdin)
		log_info("Ctrl-C to stop");
	start = last_flush = probe_mono_ms();
	while (!probe_stop_signal) {
		shm_host_wait(&h, 50);
		collector_drain(col);
		if (probe_mono_ms() - last_flush > 1000) {
			collector_flush(col);
			collector_sync_procs(col);
			last_flush = probe_mono_ms();
		}
		if (duration_ms && probe_mono_ms() - start >= duration_ms)
			break;
		if (live_on && probe_live_poll(&live))
			break;
		if (!probe_pid_state(pid, &wstatus)) {
			exited = 1;
			break;
		}
	}
	if (!exited)
		probe_attach_out(a, pid, &h, agent);
	if (!so->quiet)
		log_info("pid %d %s after %.1f s", (int)pid,
			 exited ? "exited" : "detached, its code restored",
			 (double)(probe_mono_ms() - start) / 1000);
	status = 0;
	if (exited)
		prog_status = probe_attach_gone(pid, wstatus,
						__atomic_load_n(&h.ctl->state, __ATOMIC_ACQUIRE),
						int3_placed);
out_signals:
	if (live_on)
		probe_live_close(&live);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	rc = collector_finish(col, &st);
	if (rc < 0)
		log_err("finishing the trace: %s", strerror(-rc));
	probe_run_finish(pr, &h, w);
	if (live.chg_buf && live.chg_len) /* spool report --functions shows them */
		trace_writer_add_file(w, "probe_changes", live.chg_buf, live.chg_len);
	free(live.chg_buf);
	live.chg_buf = NULL;
	len = snprintf(summary, sizeof(summary),
		       "format=spool-summary-1\nprogram=%s\nattached_pid=%d\nexit_status=0\n"
		       "term_signal=0\nevents=%llu\nlock_events=0\nthread_events=0\nlost_ring=%llu\n"
		       "lost_no_ring=%llu\nseq_gaps=%llu\nthreads=%u\nprocesses=%u\n"
		       "ring_bytes=%u\ndamaged_rings=%llu\nlost_damaged=%llu\nlost_fork=%llu\n"
		       "lost_clone=%llu\nlost_pidns=%llu\n",
		       pr->m->exe, (int)pid, (unsigned long long)st.events,
		       (unsigned long long)st.lost_ring, (unsigned long long)st.lost_no_ring,
		       (unsigned long long)st.seq_gaps, st.threads, st.procs, so->ring_bytes,
		       (unsigned long long)st.corrupt_rings, (unsigned long long)st.lost_damaged,
		       (unsigned long long)st.lost_fork, (unsigned long long)st.lost_clone,
		       (unsigned long long)st.lost_pidns);
	if (len < 0)
		len = 0;
	else if ((size_t)len >= sizeof(summary))
		len = (int)sizeof(summary) - 1; /* cut, never read past the buffer */
	trace_writer_add_file(w, "summary", summary, (size_t)len);
	/* what the state file says at close: the summary line says the same */
	trace_writer_loss(w, &loss);
out_collector:
	collector_free(col);
out_writer:
	stream_send_pause();
	if (trace_writer_close(w) < 0)
		status = 1;
out_shm:
	shm_host_destroy(&h);
out_free:
	free(a);
	if (!status && !so->quiet) {
		log_info("%llu events lost, trace in %s/",
			 (unsigned long long)trace_loss_events(&loss), so->trace_dir);
		probe_reports(so->trace_dir, pr->m, fo);
		if (pr->sys_what) {
			struct sysreport_opts sro = {.json = fo->json};

			sysreport_dir(so->trace_dir, &sro, stderr);
		}
	}
	if (!status) {
		trace_loss_warn(so->trace_dir, &loss);
		if (prog_status)
			status = prog_status; /* as in launch mode: the program's, when known */
		else if (trace_loss_incomplete(&loss))
			status = EXIT_INCOMPLETE;
	}
	return status;
}

/* What the command line of spool probe asks for. */
struct probe_cli {
	struct session_opts so;
	struct funcs_opts fo;
	struct probe_live_opts lopts;
	struct probe_run pr;
	const char *specs[PROBE_MAX_SPECS];
	uint8_t spec_off[PROBE_MAX_SPECS]; /* --disabled */
	size_t nspecs;
	int handler_add; /* --handler SO: store it in the probe library */
	int exits;	 /* PROBE_EXITS_* */
	uint64_t duration_ms;
	pid_t attach_pid;
	char pidexe[PATH_MAX]; /* -p: its executable */
};

static int probe_opt_spec(struct probe_cli *cl, const char *arg, int disabled)
{
	char err[512];
	int rc;

	if (disabled && !strncmp(arg, "sys:", 4)) {
		log_err("--disabled %s: only code probes can be placed disabled", arg);
		return -1;
	}
	if (cl->nspecs == PROBE_MAX_SPECS) {
		log_err("at most %d -e specs", PROBE_MAX_SPECS);
		return -1;
	}
	rc = disabled ? 0 : sysprobe_parse(arg, &cl->pr.sys_what, err, sizeof(err));
	if (rc < 0) {
		log_err("%s", err);
		return -1;
	}
	if (!rc) {
		cl->spec_off[cl->nspecs] = (uint8_t)disabled;
		cl->specs[cl->nspecs++] = arg;
	}
	return 0;
}

/* --handler SO or NAME (a probe of the library). */
static int probe_opt_handler(struct probe_cli *cl, const char *arg)
{
	if (!strchr(arg, '/') && access(arg, F_OK) < 0) {
		char lp[PATH_MAX];

		if (probe_userlib_find(arg, lp, sizeof(lp)) || !realpath(lp, cl->pr.handler)) {
			log_err("--handler '%s': no such file, and no probe of that name in the "
				"library (spool probe --list-library)",
				arg);
			return -1;
		}
		return 0;
	}
	if (!realpath(arg, cl->pr.handler)) {
		log_err("--handler '%s': %s", arg, strerror(errno));
		return -1;
	}
	cl->handler_add = 1;
	return 0;
}

/* One of spool probe's own options (run_opt_fn). */
static int probe_opt(void *ctx, int c, const char *arg)
{
	struct probe_cli *cl = ctx;
	uint64_t v = 0;
	int rc;

	switch (c) {
	case 'e':
		return probe_opt_spec(cl, arg, 0);
	case PROBE_O_DISABLED:
		return probe_opt_spec(cl, arg, 1);
	case PROBE_O_COMMANDS:
		cl->lopts.use_stdin = 1;
		return 0;
	case PROBE_O_CONTROL:
		cl->lopts.ctl_path = arg;
		return 0;
	case 'l':
		cl->pr.list_only = 1;
		return 0;
	case 'p':
		rc = run_opts_uint("--pid", arg, 1, INT_MAX, &v);
		cl->attach_pid = (pid_t)v;
		return rc;
	case 'd':
		if (probe_parse_duration(arg, &cl->duration_ms) < 0) {
			log_err("--duration '%s': want a time such as 10s, 500ms or 2m", arg);
			return -1;
		}
		return 0;
	case PROBE_O_DEBUG_DIR:
		rc = debugfile_add_root(arg);
		if (rc < 0)
			log_err("--debug-dir '%s': %s", arg, strerror(-rc));
		return rc < 0 ? -1 : 0;
	case PROBE_O_HANDLER:
		return probe_opt_handler(cl, arg);
	case PROBE_O_LIST_LIBRARY:
		probe_userlib_list(stdout);
		return RUN_OPTS_STOP;
	case PROBE_O_EXITS:
		if (!strcmp(arg, "auto")) {
			cl->exits = PROBE_EXITS_AUTO;
		} else if (!strcmp(arg, "patch")) {
			cl->exits = PROBE_EXITS_PATCH;
		} else if (!strcmp(arg, "retaddr")) {
			cl->exits = PROBE_EXITS_RETADDR;
		} else {
			log_err("--exits '%s': want auto, patch or retaddr", arg);
			return -1;
		}
		return 0;
	}
	return -1;
}

/* --handler SO: the probe it defines goes into the library when it is not
 * there, so that later runs can name it (--handler NAME). */
static void probe_handler_store(const struct probe_cli *cl)
{
	char name[128];
	int rc = probe_userlib_add(cl->pr.handler, name, sizeof(name));

	if (rc == 1 || rc == 2) {
		if (!cl->so.quiet)
			log_info("probe: handler probe '%s' %s the library (spool probe "
				 "--list-library; --handler %s uses it)",
				 name, rc == 1 ? "added to" : "replaced in", name);
	} else if (rc == -EINVAL) {
		log_warn("--handler %s: not stored in the probe library: its name is not a "
			 "plain file name",
			 cl->pr.handler);
	} else if (rc < 0 && rc != -ENOEXEC) {
		log_warn("--handler %s: not stored in the probe library: %s", cl->pr.handler,
			 strerror(-rc));
	}
}

/* The options that do not go together, and what is missing: 0, or the
 * exit status (said). */
static int probe_check_cli(const struct probe_cli *cl, int nargs)
{
	int live = cl->lopts.use_stdin || cl->lopts.ctl_path;

	if (live && !cl->attach_pid) {
		log_err("--commands and --control are for attach mode (-p PID)");
		return EXIT_USAGE;
	}
	if (!cl->nspecs && !cl->pr.sys_what && !live) {
		log_err("nothing to probe: give -e SPEC (e.g. -e 'func:main'; see spool probe --help)");
		return EXIT_USAGE;
	}
#if defined(__aarch64__)
	/* aarch64 (src/arch/aarch64/, doc/arm64.md): every kind of code probe
	 * (func:, block:, branch:, jump:, label:, block-exit:, var:, args:,
	 * assert:, time:), by branch trampolines (BRKs where none reaches),
	 * with --handler, --disabled and --exits retaddr, launched or attached
	 * (-p, ptrace with the arm64 register sets: a64_ptrace.c). Under
	 * qemu-user (make check-arm64) there is no ptrace at all: refused
	 * before anything is planned, with the reason. Changing the probes of
	 * an attached process (--commands, --control) is not done here. */
	if (cl->attach_pid) {
		/* (first: a usage error whatever the kernel, so said under
		 * qemu-user too, tests/arm64/288) */
		if (live) {
			log_err("--commands and --control are not available on aarch64 yet (the "
				"agent's live changes are x86-64 only): give every probe with -e "
				"when attaching (a process is attached to once) (doc/arm64.md)");
			return EXIT_USAGE;
		}
		errno = 0;
		/* a request that fails either way: ENOSYS only where the system
		 * call does not exist (qemu-user does not emulate it) */
		if (ptrace(PTRACE_PEEKUSER, 0, NULL, NULL) == -1 && errno == ENOSYS) {
			log_err("'-p': attaching is not available here: ptrace does not exist "
				"(ENOSYS: qemu-user does not emulate it; spool probe -p needs a real "
				"kernel) (doc/arm64.md)");
			return 1;
		}
	}
#endif
	if (cl->attach_pid && nargs) {
		log_err("-p PID attaches to a running process: give no program");
		return EXIT_USAGE;
	}
	if (cl->duration_ms && !cl->attach_pid) {
		log_err("--duration is for attach mode (-p PID)");
		return EXIT_USAGE;
	}
	if (!cl->attach_pid && !nargs) {
		log_err("no program (usage: spool probe -e SPEC [--] PROGRAM [ARGS])");
		return EXIT_USAGE;
	}
	if (cl->pr.list_only && nargs > 1) {
		log_err("--list takes the program only, not its arguments");
		return EXIT_USAGE;
	}
	return 0;
}

/* -p PID: its executable into cl->pidexe. 0, or 1 (said). */
static int probe_pid_exe(struct probe_cli *cl)
{
	pid_t pid = cl->attach_pid;
	char fn[64];
	ssize_t n;

	snprintf(fn, sizeof(fn), "/proc/%d/exe", (int)pid);
	n = readlink(fn, cl->pidexe, sizeof(cl->pidexe) - 1);
	if (n < 0) {
		snprintf(fn, sizeof(fn), "/proc/%d", (int)pid);
		if (access(fn, F_OK) < 0)
			log_err("-p %d: no such process", (int)pid);
		else if (errno == ENOENT)
			log_err("-p %d: cannot trace it: it has no executable (a kernel thread?)",
				(int)pid);
		else
			log_err("-p %d: cannot read its executable: %s", (int)pid, strerror(errno));
		return 1;
	}
	cl->pidexe[n] = 0;
	if (strstr(cl->pidexe, " (deleted)")) {
		log_err("-p %d: its executable %s was deleted", (int)pid, cl->pidexe);
		return 1;
	}
	return 0;
}

/* The probe manager of the program to start (prog, as typed) or of the
 * process to attach to: 0, or the exit status (said). */
static int probe_mgr_open(struct probe_mgr *m, const struct probe_cli *cl, const char *prog)
{
	int rc;

	if (cl->attach_pid) {
		rc = probe_mgr_init(m, cl->pidexe);
		if (rc < 0) {
			log_err("%s: %s", cl->pidexe, strerror(-rc));
			return 1;
		}
		m->attach = 1;
		m->attach_pid = (int)cl->attach_pid;
		/* The libraries it has mapped now, dlopen'ed ones included. */
		rc = probe_attach_libs(cl->attach_pid, &m->libs, &m->nlibs);
		if (rc < 0) {
			log_err("-p %d: cannot read its maps: %s", (int)cl->attach_pid, strerror(-rc));
			probe_mgr_free(m);
			return 1;
		}
		m->libs_resolved = 1;
	} else {
		char path[4096];
		const char *file = prog;

		/* A bare name is looked up in PATH, as the session will (by
		 * the same function: no shell started for it). */
		if (!strchr(prog, '/') && target_resolve(prog, path, sizeof(path)) == 0 &&
		    path[0] == '/')
			file = path;
		/* as spool locks and record do, and a shell: 126 (issue 17) */
		if (access(file, F_OK) == 0 && access(file, X_OK) < 0) {
			log_err("%s: not executable", prog);
			return 126;
		}
		rc = probe_mgr_init(m, file);
		if (rc < 0) {
			log_err("%s: %s", prog, strerror(-rc));
			return rc == -ENOENT ? 127 : 1;
		}
	}
	m->exits = cl->exits;
	return 0;
}

/* Register and plan the probes of every spec: 0, or the exit status (the
 * spec that failed or matched nothing said so). */
static int probe_add_specs(struct probe_mgr *m, const struct probe_cli *cl)
{
	size_t n = cl->nspecs, before;
	char err[512];
	int rc, empty = 0;

	/* time: specs last: a time: of a function that args: or var: probes
	 * too takes their probes as its entry and exits (probe_var.c), where
	 * planned first it would hold the entry itself and refuse them. */
	for (size_t k = 0; k < 2 * n; k++) {
		size_t i = k % n;
		int off = cl->spec_off[i];
		struct probe_spec s;

		if ((k < n) == !strncmp(cl->specs[i], "time:", 5))
			continue;
		if (probe_spec_parse(cl->specs[i], &s, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return EXIT_USAGE;
		}
		if (off && probe_mgr_plan_cfg(m) < 0)
			return 1; /* the blocks of the specs before it: not disabled */
		before = m->ndefs;
		rc = probe_mgr_add_spec(m, &s);
		if (rc < 0) {
			log_err("'%s': %s", cl->specs[i], strerror(-rc));
			return 1;
		}
		if (off && probe_mgr_plan_cfg(m) < 0)
			return 1;
		for (size_t d = before; off && d < m->ndefs; d++)
			m->defs[d].disabled = 1;
		if (!rc)
			empty = 1;
	}
	if (empty)
		return 1;
	rc = probe_mgr_plan_cfg(m);
	if (rc < 0) {
		log_err("planning block and branch probes: %s", strerror(-rc));
		return 1;
	}
	return 0;
}

/* Whether the plan cache may serve these specs: on (SPOOL_PLAN_CACHE=0
 * turns it off), every spec one it can hold, none placed disabled. */
static int plan_cache_wanted(const struct probe_cli *cl)
{
	const char *env = getenv("SPOOL_PLAN_CACHE");

	if (env && !strcmp(env, "0"))
		return 0;
	for (size_t i = 0; i < cl->nspecs; i++)
		if (cl->spec_off[i] || !probe_cache_spec_ok(cl->specs[i]))
			return 0;
	return cl->nspecs > 0;
}

/* probe_add_specs, or the plan an earlier run saved (probe_cache.h): a
 * run of func:, block:, branch: specs on files with build ids loads it
 * instead of planning. Not for --list (it shows what planning computes),
 * attach mode, --handler or --disabled. 0, or the exit status. */
static int probe_plan(struct probe_mgr *m, const struct probe_cli *cl)
{
	char *key = NULL;
	int cached = 0, status;

	if (!cl->attach_pid && !cl->pr.list_only && !cl->pr.handler[0] && plan_cache_wanted(cl) &&
	    probe_cache_key(m, cl->specs, cl->nspecs, cl->so.quiet, &key) == 0) {
		cached = probe_cache_load(m, key);
		if (cached < 0) {
			free(key);
			return 1;
		}
		if (!cached)
			probe_cache_capture_begin();
	}
	status = cached ? 0 : probe_add_specs(m, cl);
	if (!status && key && !cached)
		probe_cache_save(m, key);
	probe_cache_capture_end();
	free(key);
	return status;
}

/* Start the program with the probes of m and report: the exit status. */
static int probe_run_program(struct probe_cli *cl, struct probe_mgr *m, char **argv,
			     size_t nprobes)
{
	struct session_opts *so = &cl->so;
	struct probe_run *pr = &cl->pr;
	struct session_result res;
	int rc, status;

	so->argv = argv;
	so->features = SHM_FEAT_PROBES | (pr->sys_what ? SHM_FEAT_SYS : 0);
	so->ext_bytes[SHM_EXT_PROBES] = probe_mgr_area_size(m);
	if (pr->sys_what)
		so->ext_bytes[SHM_EXT_SYS] = sysprobe_area_size(so->max_rings);
	so->prepare = probe_run_prepare;
	so->finish = probe_run_finish;
	so->hook_arg = pr;
	rc = session_run(so, &res);
	if (rc < 0)
		return cmd_start_status(rc);
	if (res.term_signal == SIGTRAP && probe_int3_placed(m))
		log_err("%s was killed by SIGTRAP with %zu int3 probes in place: most likely a "
			"thread had SIGTRAP blocked for real (a mask set by the program's own "
			"syscall instruction, which spool cannot see: doc/probe.md) and hit one; "
			"the program's own SIGTRAP would end it the same way. The trace holds "
			"every event recorded before",
			so->argv[0], probe_int3_placed(m));
	else if (res.term_signal)
		log_info("%s killed by signal %d (%s)", so->argv[0], res.term_signal,
			 strsignal(res.term_signal));
	log_info("%zu of %zu probes placed, %llu events lost, trace in %s/", probe_run_placed(m),
		 nprobes, (unsigned long long)trace_loss_events(&res.loss), so->trace_dir);
	trace_loss_warn(so->trace_dir, &res.loss);
	if (!so->quiet && !res.trace_error && !stream_send_keeps())
		log_info("--no-keep: no report here (the board's copy is freed as it goes): "
			 "spool report on the host's trace");
	else if (!so->quiet && !res.trace_error) {
		fflush(stdout);
		probe_reports(so->trace_dir, m, &cl->fo);
		if (pr->sys_what) {
			struct sysreport_opts sro = {.json = cl->fo.json};

			sysreport_dir(so->trace_dir, &sro, stderr);
		}
	}
	status = cmd_run_status(&res);
	if (pr->handler_failed && !status)
		status = 1;
	/* The user asked for probes and got none: not a success, whatever
	 * the program did (the warnings above say why). Not said when the
	 * program overwrote the probe area: whether they were placed is
	 * unknown then, and said so above. */
	if (!probe_run_placed(m) && nprobes && !pr->area_unknown) {
		log_err("no probe was placed (of %zu): the program ran unprobed", nprobes);
		if (!status || status == 4)
			status = 1;
	}
	return status;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_cli cl = {
	    .so = {.trace_dir = "spool.trace",
		   .ring_bytes = SHM_DEFAULT_RING_BYTES,
		   .max_rings = SHM_DEFAULT_MAX_RINGS,
		   .limit = -1},
	    .fo = {.limit = 30, .callers = 3},
	    .exits = PROBE_EXITS_AUTO,
	};
	struct probe_mgr m;
	size_t njump = 0, nint3 = 0;
	int rc, status;

	rc = run_opts_parse("probe", argc, argv, probe_own_opts, PROBE_NOWN, &probe_run_opts,
			    &cl.so, probe_opt, &cl);
	if (rc)
		return rc < 0 ? EXIT_USAGE : 0;
	cl.fo.json = cl.so.json;
	if (cl.so.limit >= 0)
		cl.fo.limit = (unsigned)cl.so.limit;
	if (cl.handler_add)
		probe_handler_store(&cl);
	status = probe_check_cli(&cl, argc - optind);
	if (status)
		return status;
	if (cl.attach_pid && probe_pid_exe(&cl))
		return 1;
	/* Where the trace goes is checked before planning, which can take a
	 * while and says how many probes it placed: a refused -o is said
	 * first (the session checks it again when it starts writing). */
	if (!cl.pr.list_only && cl.so.trace_dir && trace_dir_usable(cl.so.trace_dir) < 0)
		return 1;
	probe_mgr_quiet = cl.so.quiet;
	status = probe_mgr_open(&m, &cl, cl.attach_pid ? NULL : argv[optind]);
	if (status)
		return status;
	status = probe_plan(&m, &cl);
	if (status)
		goto out;
	probe_run_count(&m, &njump, &nint3);
	if (cl.pr.list_only) {
		probe_mgr_print_list(&m, stdout);
		goto out;
	}
	if (!cl.so.quiet)
		log_info("%zu probes (%zu jump, %zu int3); spool probe --list shows where", njump + nint3,
			 njump, nint3);
	cl.pr.m = &m;
	if (cl.attach_pid) {
		if (cl.lopts.use_stdin || cl.lopts.ctl_path)
			m.id_reserve = PROBE_LIVE_IDS;
		status = probe_attach_session(&cl.so, &cl.pr, cl.attach_pid, cl.duration_ms, &cl.fo,
					      &cl.lopts);
		goto out;
	}
	status = probe_run_program(&cl, &m, argv + optind, njump + nint3);
out:
	probe_mgr_free(&m);
	return status;
}
