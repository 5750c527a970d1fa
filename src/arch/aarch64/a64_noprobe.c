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
 *
 * Attach (`spool probe -p`) is ported: src/probe/probe_attach.c with the
 * arm64 registers of a64_ptrace.c; the gdb server's registers and
 * breakpoints are a64_gdb.c's, its checkpoints (gdbsrv_fork.c) use
 * a64_ptrace.c's registers and injected `svc #0; brk #0`.
 */
#include <errno.h>
#include <string.h>
#include <sys/types.h>

#include "../../probe/probe.h"
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
