// SPDX-License-Identifier: MIT
/*
 * a64_noprobe.c - what the aarch64 build of spool has in place of the
 * x86-64-only parts of this stage (doc/arm64.md, "What works"):
 *
 *   - the x86 instruction interface (src/arch/x86_64/, Zydis) the planner
 *     (src/probe/probe_plan.c, probe_cfg.c) uses on x86-64: here every
 *     x86_* call fails with ENOTSUP. On aarch64 function, point, block,
 *     branch and variable probes go to a64_plan.c and a64_cfg.c instead
 *     (probe_plan_function, probe_plan_point, probe_plan_ride,
 *     probe_plan_rets, probe_plan_cfg hand them over), so none of these is
 *     reached in practice; they only keep the planner linkable.
 *   - the gdb server (`spool replay --gdb`): ptrace registers, debug
 *     registers and the x86-64 target description (gdbsrv_inf.c,
 *     gdbsrv_regs.c); refused with the reason when it would start.
 *
 * Attach (`spool probe -p`) is ported: src/probe/probe_attach.c with the
 * arm64 registers of a64_ptrace.c. The gdb server's registers are still to
 * do (issue 18).
 */
#include <errno.h>
#include <string.h>
#include <sys/types.h>

#include "../../probe/probe.h"
#include "../../replay/gdbsrv_int.h"
#include "../../util/log.h"
#include "../x86_64/x86_insn.h"

/* ---- x86 instruction interface: never decodes on aarch64 ---- */

int x86_decode(const uint8_t *p, size_t avail, uint64_t addr, struct x86_insn *out)
{
	memset(out, 0, sizeof(*out));
	return -ENOTSUP;
}

const char *x86_insn_text(const struct x86_insn *in)
{
	return "(not decoded)";
}

int x86_code_insert(struct x86_code *c, uint64_t addr, uint32_t probe_id, uint32_t handler,
		    int full)
{
	return -ENOTSUP;
}

int x86_code_relocate(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p)
{
	return -ENOTSUP;
}

int x86_code_call_moved(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p)
{
	return -ENOTSUP;
}

int x86_call_movable(const struct x86_insn *insn, const uint8_t *p)
{
	return 0;
}

int x86_code_jmp(struct x86_code *c, uint64_t target)
{
	return -ENOTSUP;
}

int x86_code_call_handler(struct x86_code *c, uint32_t probe_id, uint32_t handler, int save_flags)
{
	return -ENOTSUP;
}

int x86_code_call_handler_full(struct x86_code *c, uint32_t probe_id, uint32_t handler)
{
	return -ENOTSUP;
}

int x86_jump_table(const uint8_t *const *bytes, const size_t *avail, const uint64_t *addrs,
		   size_t n, struct x86_jtab *jt)
{
	return -ENOENT;
}

int x86_tail_jump(const uint8_t *const *bytes, const size_t *avail, const uint64_t *addrs, size_t n)
{
	return 0;
}

/* ---- the gdb server (spool replay --gdb) ---- */

int gdbsrv_inf_start(struct gdbsrv_inf *f)
{
	log_err("replay --gdb: the gdb server is x86-64 only in this build (aarch64: not yet, "
		"doc/arm64.md)");
	return -ENOTSUP;
}

void gdbsrv_inf_kill(struct gdbsrv_inf *f) {}

/* Checkpoint copies (gdbsrv_fork.c: x86-64 registers by ptrace): never
 * reached, the gdb server does not start here. */
int gdbsrv_fork(pid_t pid, const pid_t *tids, int nth, int fresh, int quiet, pid_t *copy_pid,
		pid_t *copy_tids)
{
	return -ENOTSUP;
}

void gdbsrv_reap(pid_t pid, const pid_t *tids, int nth) {}

int gdbsrv_inf_adopt(struct gdbsrv_inf *f, pid_t pid, const pid_t *tids)
{
	return -ENOTSUP;
}

void gdbsrv_inf_wait_session(struct gdbsrv_inf *f, unsigned sess) {}

struct gdbsrv_thread *gdbsrv_inf_vthread(struct gdbsrv_inf *f, int vidx)
{
	for (int i = 0; i < f->nth; i++)
		if (f->th[i].vidx == vidx)
			return &f->th[i];
	return NULL;
}

int gdbsrv_inf_set_cfg(struct gdbsrv_inf *f, const struct gdbsrv_cfg *c)
{
	return -ENOTSUP;
}

int gdbsrv_inf_resume(struct gdbsrv_inf *f, int step_vidx, int others_run, struct gdbsrv_rsp *r,
		      struct gdbsrv_stop *st)
{
	return -ENOTSUP;
}

int gdbsrv_inf_resume_pass(struct gdbsrv_inf *f, int step_vidx, int others_run,
			   struct gdbsrv_rsp *r, struct gdbsrv_stop *st, struct gdbsrv_pass *ps)
{
	return -ENOTSUP;
}

int gdbsrv_inf_read(struct gdbsrv_inf *f, uint64_t addr, void *buf, size_t len)
{
	return -ENOTSUP;
}

int gdbsrv_inf_write(struct gdbsrv_inf *f, uint64_t addr, const void *buf, size_t len)
{
	return -ENOTSUP;
}

uint64_t gdbsrv_inf_pc(struct gdbsrv_inf *f, struct gdbsrv_thread *t)
{
	return 0;
}

int gdbsrv_reg_get(pid_t tid, int regno, uint8_t *out)
{
	return -ENOTSUP;
}

int gdbsrv_reg_set(pid_t tid, int regno, const uint8_t *in)
{
	return -ENOTSUP;
}

int gdbsrv_reg_size(int regno)
{
	return 8;
}

const char *gdbsrv_target_xml(size_t *len)
{
	*len = 0;
	return "";
}
