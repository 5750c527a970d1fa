// SPDX-License-Identifier: MIT
/*
 * rr_log.h - the host side of record/replay's log (doc/record.md): the
 * feature area for a recording, the "record" side file that marks a trace
 * as a recording, loading a recording's KIND_SCHED / KIND_INPUT records
 * back into a replay area, and a text dump of a trace's schedule.
 */
#ifndef SPOOL_REPLAY_RR_LOG_H
#define SPOOL_REPLAY_RR_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../collect/run_ident.h"
#include "../trace/trace.h"
#include "rr_area.h"

/* Feature area of a recording: header and turn words. */
uint64_t rr_record_area_size(uint32_t max_objs, uint32_t max_threads);
void rr_record_area_init(void *area, uint32_t max_objs, uint32_t max_threads);
/* Serial mode in a recording's area (after rr_record_area_init). */
void rr_record_area_serial(void *area, int chaos, uint64_t seed);

/* A process of a tree recording (rr_tree.h): number k is procs[k]. */
struct rr_info_proc {
	int32_t pid, ppid;
	uint32_t parent, prev; /* process numbers, RR_NO_PROC when none */
	uint32_t kind;	       /* RR_PK_* */
	uint32_t end_sig;      /* the signal that ended it (its parent's wait), 0 */
	char exe[RR_PROC_EXE_BYTES]; /* its executable, "" when not said */
	int32_t ns_pid;	       /* its pid in a pid namespace of its own, 0 (rr_area.h) */
};

/* What the "record" side file says. */
struct rr_info {
	char mode[16];
	uint32_t pid;	   /* the recorded (first) process */
	char exe[4096];
	char buildid[160]; /* hex, "" if the binary had none */
	uint32_t flags;	   /* RR_F_* */
	uint64_t lost;
	char report[RR_REPORT_BYTES];
	int chaos;	   /* serial: recorded with --chaos */
	uint64_t seed;	   /* serial: its seed */
	uint64_t switches; /* serial: switches of the run token */
	uint64_t direct;   /* input calls made through syscall() (recorded) */
	char direct_calls[160]; /* their names, comma-separated */
	uint64_t own_futex; /* sync: the program's own futex calls (not ordered) */
	/* threads the program made with its own clone (libc's clone() or its
	 * own clone system call, not pthread_create): not numbered, their
	 * calls recorded as their creator's (the agents' count) */
	uint32_t clones;
	/* system calls of the program's own syscall instructions, seen by
	 * syscall user dispatch; raw_state: RR_RAW_* (rr_area.h) */
	uint64_t raw;
	char raw_calls[512]; /* "name count" pairs, comma-separated */
	uint32_t raw_state;
	int raw_err;
	int lock_events;   /* recorded with --lock-events: the replay writes them too */
	int compress;	   /* recorded with --compress: the replay loads libzstd whatever its log */
	int snapz;	   /* recorded with snapshot images: the replay loads libzstd as it did */
	/* the images' budget (--snap-max; 0: none or not said), the bytes of
	 * those kept, and when the budget stopped them (snap_stopped = 1),
	 * how many were kept then */
	uint64_t snap_budget, snap_bytes, snap_kept;
	uint64_t snap_removed, snap_taken; /* of those taken, removed by the budget */
	int snap_stopped;
	int shm_fd;	   /* the program's descriptor of the shared region (0: not said) */
	int kills;	   /* the recording has its signal sends (RR_CALL_KILL) */
	int fdtab;	   /* sync: the descriptor calls are ordered (RR_OP_FDTAB) */
	int entries_only;  /* serial: function entries only were progress points */
	char fds[256];	   /* descriptors >= 3 it inherited, "N,N,..." (rr_fds.h) */
	/* what the program's stdout and stderr were: "tty", "pipe", "file",
	 * "null" ("" when not said), and a file's offset (stdio_kind.h) */
	char out_kind[2][8];
	uint64_t out_off[2];
	char cwd[4096]; /* the program's working directory ("" when not said) */
	/* the file spool ran (argv[0] looked up in PATH, not resolved through
	 * links: "" in recordings made before it was kept, whose replay runs
	 * exe), and the personality, umask and limits it ran with */
	char path[4096];
	struct run_ident ident;
	/* where the program's stack, break, next mapping and executable were
	 * (rr_area.layout, RR_LAYOUT_*; 0: not said) */
	uint64_t layout[RR_LAYOUT_N];
	/* clock reads made before the agent started (rr_area.early_*) */
	uint32_t early_n;
	int32_t early_clk[RR_EARLY_MAX];
	uint64_t early_ns[RR_EARLY_MAX];
	/* bytes and entries of the file name, argv and environment on the
	 * program's stack (0: not said; session.c, stack_pad) */
	uint64_t stack_bytes, stack_items;
	/* A recording of a process tree: its processes (0 or 1: one process;
	 * an older recording says nothing and has one). */
	uint32_t nprocs;
	struct rr_info_proc procs[RR_MAX_PROCS];
};
int rr_info_write(struct trace_writer *w, const struct rr_info *info);
/* -ENOENT: the trace has no recording. */
int rr_info_read(const char *dir, struct rr_info *info);
/* The same from a trace already open (opening one reads every stream's
 * packet index: spool info, which has it open, does not open it again). */
int rr_info_read_reader(struct trace_reader *r, struct rr_info *info);

struct rr_log;
/* Load the schedule and inputs of a recording. On error returns a negative
 * errno with a message in err. */
int rr_log_load(const char *dir, struct rr_log **out, char *err, size_t errlen);
/* The same for a recording of the given mode (serial = 1: the token's
 * schedule, KIND_SCHED records with op RR_OP_SWITCH, is loaded too). */
int rr_log_load_mode(const char *dir, int serial, struct rr_log **out, char *err,
		     size_t errlen);
/* The same for process number proc of a tree recording (rr_tree.h): its
 * records only, with the process number taken out of their thread field. */
int rr_log_load_proc(const char *dir, int serial, uint32_t proc, struct rr_log **out, char *err,
		     size_t errlen);
uint64_t rr_log_switches(const struct rr_log *log);
uint64_t rr_log_area_size(const struct rr_log *log);
uint32_t rr_log_threads(const struct rr_log *log);
uint64_t rr_log_events(const struct rr_log *log, uint64_t *inputs);
/* Bytes of the replay image a log was opened from (rr_img.c), else 0. */
uint64_t rr_log_image_size(const struct rr_log *log);
/* Fill a replay area of rr_log_area_size bytes. Returns 0 or -ENOMEM. */
int rr_log_fill(const struct rr_log *log, void *area, uint32_t stuck_ms, uint32_t opts);
void rr_log_free(struct rr_log *log);


/* Print a trace's schedule, one line per event in (object, turn) order,
 * then its inputs in (thread, event) order. Returns 0 or a negative errno. */
int rr_dump_schedule(const char *dir, FILE *out);

#endif
