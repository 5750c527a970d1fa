// SPDX-License-Identifier: MIT
/*
 * similar.c - many merged events that begin alike, for spool cc's table
 * sharing (tests/integ/87-cc-table.t): every handler starts with the same
 * four trace calls (a macro, as a request header would be traced) and ends
 * with calls of its own, so each merged event's table entry repeats the
 * same first lines; the table stores them once and the others refer to
 * them. Usage: similar ROUNDS. Deterministic.
 */
#include <stdlib.h>

#include <spool/trace.h>

enum { EV_REQ = 41, EV_USER, EV_SIZE, EV_FLAGS, EV_GET, EV_PUT, EV_DEL, EV_LIST, EV_STAT,
       EV_MOVE, EV_COPY, EV_LINK, EV_DONE };

#define HEADER(r, u, n)                                                                            \
	do {                                                                                       \
		SPOOL_TRACE(EV_REQ, r, 1);                                                         \
		SPOOL_TRACE(EV_USER, u, r);                                                        \
		SPOOL_TRACE(EV_SIZE, n, 4096);                                                     \
		SPOOL_TRACE(EV_FLAGS, 0x10, 0x20, r);                                              \
	} while (0)

#define HANDLER(name, ev)                                                                          \
	static __attribute__((noinline)) long name(long r, long u, long n)                         \
	{                                                                                          \
		HEADER(r, u, n);                                                                   \
		SPOOL_TRACE(ev, r + n, 1);                                                         \
		SPOOL_TRACE(ev, n - u, 2);                                                         \
		return (r * 7 + u + n) & 1023;                                                     \
	}

HANDLER(do_get, EV_GET)
HANDLER(do_put, EV_PUT)
HANDLER(do_del, EV_DEL)
HANDLER(do_list, EV_LIST)
HANDLER(do_stat, EV_STAT)
HANDLER(do_move, EV_MOVE)
HANDLER(do_copy, EV_COPY)
HANDLER(do_link, EV_LINK)

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100, s = 0;
	long (*const h[])(long, long, long) = {do_get,  do_put,  do_del,  do_list,
					       do_stat, do_move, do_copy, do_link};

	for (long r = 0; r < rounds; r++)
		s += h[r % 8](r, s & 63, r * 3);
	SPOOL_TRACE(EV_DONE, s);
	return 0;
}
