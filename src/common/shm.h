// SPDX-License-Identifier: MIT
/*
 * shm.h - layout of the shared-memory region between spool and the agent.
 *
 * spool creates a memfd, sizes it, seals it against shrinking, maps the
 * head (control block and process slots), fills the control block and
 * passes the descriptor number to the target in SPOOL_SHM_FD (the
 * descriptor is inherited without O_CLOEXEC so an exec'd image finds it
 * too). The memfd is large but sparse: a page costs memory only once
 * written, and neither side maps the whole of it. Each side maps the head,
 * then each ring, text area or feature area separately when it needs it
 * (the agent: a ring when one of its threads claims it), so a one-thread
 * program pays for one ring in address space, not for all of them.
 * Layout, all offsets from the start, every piece page-aligned:
 *
 *   [ struct shm_ctl                      ] SHM_CTL_SIZE
 *   [ struct shm_proc x SHM_MAX_PROCS     ] SHM_PROCS_SIZE (only the first
 *                                           max_procs are used and mapped)
 *   [ text area x max_procs               ] SHM_PROC_TEXT_BYTES each: the
 *                                           command line at 0, the maps text
 *                                           at maps_off (sparse, grows)
 *   [ ring 0: struct shm_ring + data      ] shm_ring_stride(ring_bytes)
 *   [ ring 1 ...                          ]
 *   [ feature areas (ext_offset[i])       ]
 *
 * The offsets follow from the constants here and from ring_bytes,
 * max_rings and max_procs alone: spool keeps its own copy of those and never reads a
 * size or an offset back from the region, which the target can write.
 *
 * Rings are single-producer (one thread of the target) single-consumer (the
 * collector). The producer owns head, the consumer owns tail; both are byte
 * counters that only grow, and data lives at (counter & (ring_bytes - 1)).
 * A record never straddles the end of the data area: when one would, the
 * producer writes a KIND_PAD record up to the end and starts at offset 0.
 * The producer publishes a record by storing head with release order after
 * writing it; the consumer reads head with acquire order, copies, then
 * stores tail with release order.
 */
#ifndef SPOOL_COMMON_SHM_H
#define SPOOL_COMMON_SHM_H

#include <stddef.h>
#include <stdint.h>

#define SHM_MAGIC 0x31304c4f4f5053ULL /* "SPOOL01" */
#define SHM_VERSION 4
#define SHM_CTL_SIZE 4096
/* Process slots the layout has room for; --max-procs picks how many are
 * used (ctl->max_procs), SHM_DEFAULT_MAX_PROCS unless told. A slot is
 * reused once its process has ended (see the handshake below), so the
 * bound is on processes alive at once, not on processes ever started. */
#define SHM_MAX_PROCS 1024
#define SHM_DEFAULT_MAX_PROCS 64
#define SHM_PROC_EXE 4096 /* the kernel's own bound on /proc/self/exe */
/* Bytes of command line and maps text kept per process: far more than real
 * programs have (65530 mappings, the default vm.max_map_count, make about
 * 10 MiB of maps); the area is sparse, so only what is written costs
 * memory. Text cut at this bound is flagged (SHM_TEXT_*_CUT) and spool
 * warns. */
#define SHM_PROC_TEXT_BYTES (32u << 20)
#define SHM_RING_HDR 256
#define SHM_PAGE 4096u
#define SHM_DEFAULT_RING_BYTES (2u << 20) /* per thread; bursts of 50k events */
#define SHM_DEFAULT_MAX_RINGS 256
#define SHM_ENV_FD "SPOOL_SHM_FD"
/* Where the region can be opened again when the program has closed that
 * descriptor before an exec (a daemon closing every descriptor > 2):
 * /proc/<spool>/fd/<n>, the pid padded with extra slashes after "/proc" so
 * that the variable's length does not depend on spool's pid (a recording
 * and its replay then give the program the same environment size). */
#define SHM_ENV_PATH "SPOOL_SHM_PATH"
#define SHM_ENV_PATH_PID_WIDTH 10

/* Feature areas (ctl->ext_offset[i]) and feature bits (ctl->features). */
#define SHM_MAX_EXT 8
enum { SHM_EXT_REPLAY = 0, SHM_EXT_PROBES = 1, SHM_EXT_PATH = 2, SHM_EXT_SYS = 3 };
#define SHM_FEAT_LOCKS 0x1u	/* lock events (spool locks); the default */
#define SHM_FEAT_RECORD 0x2u	/* record/replay: recording */
#define SHM_FEAT_REPLAY 0x4u	/* record/replay: replaying */
#define SHM_FEAT_PROBES 0x8u	/* dynamic probes */
#define SHM_FEAT_PATH 0x10u	/* thread path: function entries */
#define SHM_FEAT_SYS 0x20u	/* system probes: CPU, I/O counters (src/common/sys_area.h) */

/* ctl->flags: options spool sets for the agent. */
#define SHM_F_DROP_WHEN_FULL 0x1u /* a full ring drops at once (--on-full drop) */
/* Rings hold finished trace-format-2 packets (src/common/ring_packet.h),
 * one per slot of shm_pkt_slot(ring_bytes) bytes, which the collector
 * copies to the stream files whole (the default but for record/replay;
 * SPOOL_RING_PACKETS=0 turns it off: doc/trace-format.md "Packets in the
 * ring"). */
#define SHM_F_PACKETS 0x2u
/* No per-event time (--clock=none): with SHM_F_PACKETS, the agent reads
 * the clock once per packet, not once per event, and every event of a
 * packet carries its opening time (src/common/ring_packet.h, struct
 * ring_pkt's untimed; doc/trace-format.md "Traces without per-event
 * time"). Without packets (records mode) it changes nothing in the agent:
 * the trace says it has no per-event time all the same. */
#define SHM_F_UNTIMED 0x4u

/* ctl->state bits */
#define SHM_STATE_DISABLED 1u /* agent stopped recording (reason in ctl->reason) */
#define SHM_STATE_FD_GONE 2u  /* a thread found no ring: the program closed the region's fd */
#define SHM_STATE_NOMAP 4u    /* a thread found no ring: no address space to map it */
/* spool probe -p: the attached process ran its exit handlers while the
 * agent recorded (it called exit() or returned from main); a process that
 * vanished without it was killed by a signal (or called _exit). */
#define SHM_STATE_EXIT_RAN 8u

/* shm_proc.text_flags: text the agent had to cut at SHM_PROC_TEXT_BYTES. */
#define SHM_TEXT_MAPS_CUT 0x1u
#define SHM_TEXT_CMDLINE_CUT 0x2u

/* ring->state (RING_CLAIMING: taken, its tid and pid not yet stored) */
enum { RING_FREE = 0, RING_ACTIVE = 1, RING_EXITED = 2, RING_CLAIMING = 3 };

/*
 * shm_proc.state: a process slot is reused once its process is gone, each
 * step by one side only:
 *
 *   PROC_FREE    --agent: CAS, claims it, stores its pid--> PROC_CLAIMED
 *   PROC_CLAIMED --agent: filled (release)-->               PROC_LIVE
 *   PROC_LIVE    --agent of the next image after exec-->    PROC_ENDED
 *   PROC_CLAIMED/PROC_LIVE/PROC_ENDED --collector: the process is gone (pidfd) or
 *                the image exec'd away; its rings drained and given back,
 *                its maps and command line written to the trace-->  PROC_FREE
 *
 * A process that finds no free slot (more alive at once than max_procs)
 * is counted in ctl->lost_no_proc; its threads still record, but its maps
 * and command line are not in the trace.
 */
enum { PROC_FREE = 0, PROC_CLAIMED = 1, PROC_LIVE = 2, PROC_ENDED = 3 };
/* A ring whose process ended: RING_FREE with pid 0, takeable by a thread
 * of any process (ring->proc_slot says which slot's process had it). */
#define SHM_RING_NO_PROC UINT32_MAX

struct shm_ctl {
	uint64_t magic;
	uint32_t version;
	uint32_t ctl_size;
	uint64_t total_size;   /* bytes of the memfd (sparse) */
	uint64_t procs_offset; /* first struct shm_proc: SHM_CTL_SIZE */
	uint64_t rings_offset; /* first struct shm_ring: SHM_RINGS_OFFSET */
	uint32_t ring_bytes;   /* data bytes per ring, a power of two */
	uint32_t max_rings;
	uint32_t watermark;   /* bytes filled at which a producer wakes the collector */
	uint32_t stack_depth; /* --stacks N: frames recorded after the call site, 0 = off */
	uint32_t flags;	      /* SHM_F_* options set by spool */
	uint32_t host_pid;    /* the spool process */

	/* Allocators, advanced by the agent with atomic fetch-add. */
	uint32_t nrings; /* thread index allocator: ring slots handed out */
	uint32_t nprocs; /* process slots used so far (high-water mark) */
	uint32_t nlocks; /* lock index allocator (index 0 is never used) */
	uint32_t state;	 /* SHM_STATE_* */

	/* The collector sleeps on this futex word; a producer whose ring crosses
	 * the watermark increments it and calls FUTEX_WAKE once, so the wake-up
	 * costs a system call per watermark, never per event. */
	uint32_t wake_seq;
	uint32_t collector_sleeping; /* set by the collector before it waits */

	uint64_t lost_no_ring; /* events dropped: no free ring for the thread */
	uint64_t lost_no_proc; /* processes that found no free process slot */
	char reason[256];      /* why the agent disabled itself, NUL-terminated */

	/* Features beyond lock events (record/replay, probes, thread path):
	 * what the agent should do, and where each feature's own area lies in
	 * the mapping (after the rings). A feature owns the layout of its area;
	 * its header lives with the feature's code. */
	uint32_t features; /* SHM_FEAT_* */
	/* the pid namespace spool runs in: the number in its
	 * /proc/self/ns/pid link ("pid:[N]"), 0 unknown (agent_main.c: a
	 * process in another whose /proc is its namespace's own) */
	uint32_t host_pidns;
	uint64_t ext_offset[SHM_MAX_EXT]; /* 0 = the feature has no area */
	uint64_t ext_size[SHM_MAX_EXT];
	uint32_t max_procs;	/* process slots in use (<= SHM_MAX_PROCS) */
	uint32_t procs_stalled; /* a process waited in vain for a slot (agent) */
	/* Set by the first process to claim a slot (agent): any later process
	 * that is not an exec of a process with a slot is a child, whether or
	 * not the agent saw it fork (vfork, posix_spawn and a raw clone run no
	 * fork handler). Only the agent reads it; spool never does. */
	uint32_t root_claimed;
	uint32_t pad_root;
	/* Events dropped in a fork child before it had a ring (agent): from
	 * fork's prepare handler to the child's, and in a child of _Fork or of
	 * a fork or clone made through syscall(), which run no fork handler.
	 * The child's memory is a copy of its parent's, so its only shared
	 * counter is this one (doc/probe.md, "Limits"). */
	uint64_t lost_fork;
	/* Threads the program made with its own clone (libc's clone() or its
	 * own syscall instruction, not pthread_create), and the events of
	 * those sharing their creator's thread state that were dropped rather
	 * than written into their creator's ring (agent_thread.c). Written by
	 * the program's side: bounded by the collector. unseen_clones: those
	 * of them spool did not see being made (the program's own clone system
	 * call where syscall user dispatch does not reach), found later running
	 * on another thread's state (counted in raw_clones too). */
	uint64_t lost_clone;
	uint32_t raw_clones;
	uint32_t unseen_clones;
	/* Events of processes in a pid namespace with a /proc of its own
	 * (mounted inside it, or an image exec'd there): spool cannot tell
	 * their pids, so they get no process slot and no ring (agent_main.c,
	 * agent_proc_claim). Written by the program's side: bounded by the
	 * collector. */
	uint64_t lost_pidns;
};

/* Process information, filled by the agent at startup from /proc/self (and
 * refreshed after dlopen): what an offline symbolizer needs. The command
 * line and the maps text live in the process's text area
 * (shm_proc_text_offset), where they can be as long as they are. */
struct shm_proc {
	uint32_t pid;
	uint32_t ppid;
	uint32_t flags;	      /* PROC_F_* of event.h */
	uint32_t maps_gen;    /* odd while maps is rewritten, bumped to even after */
	uint32_t maps_len;    /* bytes valid at maps_off in the text area */
	uint32_t cmdline_len; /* bytes valid at 0 in the text area, NUL-separated args */
	uint32_t exe_len;
	uint32_t text_flags; /* SHM_TEXT_* */
	uint64_t maps_off;   /* where the maps text starts in the text area */
	uint32_t state;	     /* PROC_* */
	/* The ring (number + 1) the agent writes this image's process record
	 * into, stored before the record (0: none yet). The collector takes
	 * a process record from that ring only: one in another ring is the
	 * forgery, whichever the collector drains first. */
	uint32_t proc_ring;
	uint8_t pad[16];
	char exe[SHM_PROC_EXE];
};

struct shm_ring {
	/* producer cache line */
	uint64_t head; /* bytes published */
	uint64_t lost; /* events dropped because the ring was full */
	uint32_t state;
	uint32_t tid;
	uint32_t pid;
	uint32_t thread_index; /* == ring number */
	uint32_t last_seq;     /* seq of the last event attempted */
	uint32_t woke;	       /* head/watermark at the last wake, to wake once */
	uint32_t proc_slot;    /* the owner's process slot, or SHM_RING_NO_PROC */
	/* SHM_F_PACKETS: the seq of the last event committed or counted as
	 * lost; last_seq - done_seq is the event a crash cut short. */
	uint32_t done_seq;
	/* Unused (kept for the layout): the run's counts are those of the
	 * packets the collector checked, so the producer no longer counts
	 * here per event. */
	uint64_t n_events;
	uint64_t n_lock;
	/* consumer cache line */
	uint64_t tail;
	uint8_t pad1[128 - 72];
	/* unused too (were the counts of the rare classes) */
	uint32_t n_thread;
	uint32_t n_proc;
	uint8_t pad2[SHM_RING_HDR - 136];
	/* data follows */
};

_Static_assert(sizeof(struct shm_ctl) <= SHM_CTL_SIZE, "ctl too big");
_Static_assert(sizeof(struct shm_ring) == SHM_RING_HDR, "ring header size");
_Static_assert(offsetof(struct shm_ring, tail) == 64, "the consumer's line");
_Static_assert(sizeof(struct shm_proc) % 64 == 0, "process slot size");

#define SHM_PROCS_SIZE                                                                             \
	(((uint64_t)SHM_MAX_PROCS * sizeof(struct shm_proc) + SHM_PAGE - 1) &                      \
	 ~(uint64_t)(SHM_PAGE - 1))
/* The head at full capacity: where the text areas start. */
#define SHM_HEAD_SIZE ((uint64_t)SHM_CTL_SIZE + SHM_PROCS_SIZE)
#define SHM_TEXT_OFFSET SHM_HEAD_SIZE
/* The rings follow the text areas of the max_procs slots in use (not of
 * all SHM_MAX_PROCS: the memfd's size counts against RLIMIT_FSIZE). */
static inline uint64_t shm_rings_offset(uint32_t max_procs)
{
	return SHM_TEXT_OFFSET + (uint64_t)max_procs * SHM_PROC_TEXT_BYTES;
}

/* What both sides map of the head, and keep mapped: the control block
 * and the max_procs slots in use. */
static inline uint64_t shm_head_map_size(uint32_t max_procs)
{
	return ((uint64_t)SHM_CTL_SIZE + (uint64_t)max_procs * sizeof(struct shm_proc) + SHM_PAGE -
		1) &
	       ~(uint64_t)(SHM_PAGE - 1);
}

/* A ring's header and data, rounded up to whole pages. */
static inline uint64_t shm_ring_stride(uint32_t ring_bytes)
{
	return ((uint64_t)SHM_RING_HDR + ring_bytes + SHM_PAGE - 1) & ~(uint64_t)(SHM_PAGE - 1);
}
/* Bytes to map for one ring: its header and data. */
static inline uint64_t shm_ring_map_size(uint32_t ring_bytes)
{
	return (uint64_t)SHM_RING_HDR + ring_bytes;
}
static inline uint64_t shm_ring_offset(uint32_t ring_bytes, uint32_t max_procs, uint32_t i)
{
	return shm_rings_offset(max_procs) + (uint64_t)i * shm_ring_stride(ring_bytes);
}
static inline uint64_t shm_proc_text_offset(uint32_t i)
{
	return SHM_TEXT_OFFSET + (uint64_t)i * SHM_PROC_TEXT_BYTES;
}
static inline uint64_t shm_total_size(uint32_t ring_bytes, uint32_t max_procs, uint32_t max_rings)
{
	return shm_ring_offset(ring_bytes, max_procs, max_rings);
}
/* Process slot i in a mapping of the head: computed from constants only,
 * never from the control block. */
static inline struct shm_proc *shm_proc_at(void *head, uint32_t i)
{
	return (struct shm_proc *)((char *)head + SHM_CTL_SIZE) + i;
}
/* SHM_F_PACKETS: bytes of a ring's packet slot (a power of two, a quarter
 * of the ring at most, SHM_PKT_SLOT_MAX at most); a packet starts at a
 * slot boundary and never leaves its slot. Each packet defines its sites
 * again (doc/trace-format.md): with 64 KiB packets, sqlite3 with every
 * libsqlite3 function probed spent one event in six on site definitions
 * (6.8 M of 42.4 M events, 35 % of the trace's bytes), each through the
 * probe's general path. A site definition is 28 bytes, so a slot of
 * 256 KiB never holds more than RING_PKT_MAX_SITES of them. */
#define SHM_PKT_SLOT_MAX (256u * 1024)
static inline uint32_t shm_pkt_slot(uint32_t ring_bytes)
{
	uint32_t s = ring_bytes / 4;

	return s > SHM_PKT_SLOT_MAX ? SHM_PKT_SLOT_MAX : s;
}
static inline unsigned char *shm_ring_data(struct shm_ring *r)
{
	return (unsigned char *)r + SHM_RING_HDR;
}

#endif
