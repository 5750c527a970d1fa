// SPDX-License-Identifier: MIT
/*
 * sys_area.h - the shared-memory area of the system probes (spool probe
 * -e sys:cpu / sys:io / sys:mem), ctl->ext_offset[SHM_EXT_SYS].
 *
 * No events: every counter lives here, one slot per thread index (ring
 * number), and only the thread that owns a slot writes its counters, with
 * relaxed single-writer stores (no lock prefix). spool reads them whenever
 * it likes (its sampler) and once more at the end. The one exception is
 * cpu_ns/cpu_final, which the exiting process's last thread may also write
 * for threads still alive at exit (a plain store of a value nobody else
 * writes at that moment).
 *
 * This file must stay usable from the agent: no libc beyond <stdint.h>.
 */
#ifndef SPOOL_COMMON_SYS_AREA_H
#define SPOOL_COMMON_SYS_AREA_H

#include <stdint.h>

#define SYS_AREA_MAGIC 0x31535953u /* "SYS1" */

/* sys_area_hdr.what */
#define SYS_W_CPU 0x1u
#define SYS_W_IO 0x2u
#define SYS_W_MEM 0x4u

/* I/O direction and kind of descriptor (fstat of the fd, cached per fd). */
enum { SYS_IO_READ = 0, SYS_IO_WRITE = 1, SYS_IO_DIRS };
enum { SYS_FD_FILE = 0, SYS_FD_PIPE, SYS_FD_SOCKET, SYS_FD_TTY, SYS_FD_OTHER, SYS_FD_KINDS };

struct sys_area_hdr {
	uint32_t magic;
	uint32_t what;	  /* SYS_W_* asked for */
	uint32_t nslots;  /* == ctl->max_rings */
	uint32_t slot_size;
	uint64_t slots_off; /* from the start of the area */
	uint64_t pad[5];
};
_Static_assert(sizeof(struct sys_area_hdr) == 64, "sys_area_hdr layout");

struct sys_slot {
	uint64_t cpu_ns;    /* the thread's CPU time (user + system) at its end */
	uint32_t cpu_final; /* 1 once cpu_ns is set */
	uint32_t pid;	    /* the process of the ring's last thread (the ring's own
			     * pid is 0 once it is freed: spool's report names it) */
	uint64_t io_calls[SYS_IO_DIRS][SYS_FD_KINDS]; /* calls, failed ones included */
	uint64_t io_bytes[SYS_IO_DIRS][SYS_FD_KINDS]; /* bytes transferred */
	uint64_t io_errors[SYS_IO_DIRS];	      /* calls that returned -1 */
	/* sys:mem, counted by the thread that made the call (agent_sys_mem.c):
	 * calls of the allocating functions (malloc, calloc, realloc,
	 * posix_memalign, aligned_alloc, memalign, valloc, pvalloc), the bytes
	 * they were asked for (successful calls), blocks released (free of a
	 * non-NULL pointer, realloc to 0), and the usable bytes
	 * (malloc_usable_size) of the blocks this thread allocated minus those
	 * it released: two's complement, negative when it freed others'. */
	uint64_t mem_calls;
	uint64_t mem_bytes;
	uint64_t mem_frees;
	uint64_t mem_live;
};
_Static_assert(sizeof(struct sys_slot) == 224, "sys_slot layout");

static inline struct sys_slot *sys_area_slot(void *area, uint32_t i)
{
	struct sys_area_hdr *h = (struct sys_area_hdr *)area;

	return (struct sys_slot *)((char *)area + h->slots_off + (uint64_t)i * h->slot_size);
}

#endif
