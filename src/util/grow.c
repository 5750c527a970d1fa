// SPDX-License-Identifier: MIT
/*
 * grow.c - heap arrays grown by doubling, new entries zeroed (grow.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

int grow_zeroed(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = reallocarray(*p, ncap, elem);
	if (!np)
		return -ENOMEM;
	memset((char *)np + *cap * elem, 0, (ncap - *cap) * elem);
	*p = np;
	*cap = ncap;
	return 0;
}
