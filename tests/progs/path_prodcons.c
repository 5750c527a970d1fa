// SPDX-License-Identifier: MIT
/*
 * path_prodcons.c - path_prodcons-finst.c built without
 * -finstrument-functions, for spool path's function probes
 * (tests/integ/96-path-probes.t). Calls the compiler inlines have no entry
 * to probe, so inlining is off here: the small lock(), put() ... stay calls,
 * as the -finst build's hooks report them even where they were inlined.
 */
#pragma GCC optimize("no-inline")
#include "path_prodcons-finst.c"
