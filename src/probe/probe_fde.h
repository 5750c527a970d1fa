// SPDX-License-Identifier: MIT
/*
 * probe_fde.h - functions of a stripped module found from its call-frame
 * information: every FDE of .eh_frame (listed by .eh_frame_hdr's search
 * table) that starts in the entry state (CFA = rsp + 8) and that no symbol
 * covers is a function the compiler emitted, named or not. spool path uses
 * them to probe a stripped program's static functions (Debian's pigz
 * exports none).
 */
#ifndef SPOOL_PROBE_PROBE_FDE_H
#define SPOOL_PROBE_PROBE_FDE_H

#include "probe.h"

/* Add one probe_sym per such FDE to mod->syms (kept sorted), named
 * "FILE+0xOFFSET" as the symbolizer names an address without a symbol,
 * sized by the FDE's range. Call before planning any probe of the module.
 * Returns how many were added, or a negative errno (-ENOENT: no
 * .eh_frame_hdr; -ENOTSUP: a table encoding other than GCC's and clang's). */
int probe_module_add_fde_funcs(struct probe_module *mod);

/* The landing pads (C++ catch and cleanup code, which the unwinder enters:
 * no branch reaches them) of every FDE with an LSDA, from .eh_frame and
 * .gcc_except_table: malloc'ed into *v (unsorted). None when the module has
 * no such tables or uses an encoding other than GCC's and clang's. Returns
 * 0 or -ENOMEM. */
int probe_fde_landing_pads(struct probe_module *mod, uint64_t **v, size_t *n);

#endif
