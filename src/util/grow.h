// SPDX-License-Identifier: MIT
/*
 * grow.h - one way to grow a heap array: doubled (from 8 entries) until it
 * holds what is needed, the new entries zeroed, so a caller can index
 * past its last write (a table's rows of optional text, a sparse id) and
 * find NULL or 0 there.
 */
#ifndef SPOOL_UTIL_GROW_H
#define SPOOL_UTIL_GROW_H

#include <stddef.h>

/* Grow *p (an array of elem-byte entries, *cap of them) to hold need:
 * 0, or -ENOMEM with *p and *cap unchanged. */
int grow_zeroed(void **p, size_t *cap, size_t need, size_t elem);

#endif
