// SPDX-License-Identifier: MIT
/*
 * spool/trace.h - trace calls for instrumented programs (doc/cc.md).
 *
 *	SPOOL_TRACE_EVENT(EV_SEND, "send", "fd,len");	once, at file scope
 *	SPOOL_TRACE(EV_SEND, fd, len);			up to 6 integer arguments
 *	SPOOL_TRACE_BARRIER();				no trace call moves across this
 *	SPOOL_TRACE_MOVE(N, EV_SEND, fd, len);		written at most N trace calls later
 *	SPOOL_TRACE_IDEMPOTENT(EV_SEND);		at file scope: adjacent equal events
 *							of this id may share one table entry
 *	cc -DSPOOL_TRACE_OFF_EV_SEND ...		every SPOOL_TRACE(EV_SEND, ...) is gone
 *
 * Event ids are integer constant expressions below 0x80000000 (the ids from
 * there on belong to spool cc); arguments are anything that converts to
 * int64_t. Misuse is a compile-time error at the call.
 *
 * Built by any C compiler, a trace call stores its arguments and calls
 * spool_trace_emit, which libspool-agent.so defines when spool runs the
 * program. The declaration is weak: a program that runs without spool links
 * and runs, and its trace calls cost a test and a branch.
 *
 * Built by `spool cc` (which defines SPOOL_CC), a trace call becomes a call of
 * an external marker function spool__traceN that the optimizer (spool-ccopt)
 * finds in the LLVM IR and rewrites: the calls of a basic block merge into one
 * call of spool__emit carrying only the values the decoder cannot recompute.
 * The marker calls are opaque to clang, so the optimizer sees them in program
 * order with the values they trace. A program never depends on the optimizer
 * being right: the same source without spool cc writes the same events.
 */
#ifndef SPOOL_TRACE_H
#define SPOOL_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libspool-agent.so; NULL (weak, undefined) when not preloaded. */
extern void spool_trace_emit(uint32_t id, uint32_t nargs, const int64_t *args)
	__attribute__((weak));
/* The same record without a time of its own (the agent skips rdtsc): only
 * code rewritten by spool cc calls it, for a record that follows another of
 * the thread through straight-line code; spool decode estimates its time
 * from that record's (doc/cc.md, "Untimed records"). */
extern void spool_trace_emit_nt(uint32_t id, uint32_t nargs, const int64_t *args)
	__attribute__((weak));

/* One event description, kept in the binary's spool_events section so spool
 * decode can print names. 128 bytes; strings are NUL-padded. */
#define SPOOL_EVENT_DESC_MAGIC 0x53504556u /* "SPEV" */
struct spool_event_desc {
	uint32_t magic;
	uint32_t id;
	char name[48];
	char args[72]; /* argument names, comma-separated */
};

#define SPOOL__CAT_(a, b) a##b
#define SPOOL__CAT(a, b) SPOOL__CAT_(a, b)
#define SPOOL__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, n,    \
		     ...)                                                                          \
	n
/* Number of macro arguments, 1 to 7 (the id and up to 6 values); 8 to 16
 * select SPOOL__T_too_many, a compile error that says so. */
#define SPOOL__NARG(...)                                                                           \
	SPOOL__NARG_(__VA_ARGS__, _too_many, _too_many, _too_many, _too_many, _too_many,          \
		     _too_many, _too_many, _too_many, _too_many, 7, 6, 5, 4, 3, 2, 1, 0)
/* A compile error with a message, usable where an expression is. */
#define SPOOL__FAIL(msg)                                                                           \
	((void)sizeof(struct {                                                                     \
		_Static_assert(0, msg);                                                            \
		int spool__ok;                                                                     \
	}))
#define SPOOL__T_too_many(...) SPOOL__FAIL("SPOOL_TRACE: at most 6 arguments after the event id")

#define SPOOL_TRACE_EVENT(id, name, argnames)                                                     \
	static const struct spool_event_desc SPOOL__CAT(spool__event_, __LINE__)                   \
		__attribute__((used, section("spool_events"), aligned(8))) = {                    \
			SPOOL_EVENT_DESC_MAGIC, (id), name, argnames}

/* A compile-time check of the id, naming the call in the message. An
 * expression, not a do-while block: at -O0 a block is a chain of basic blocks
 * and the optimizer merges only within one. */
#define SPOOL__CHECK_ID(id)                                                                        \
	((void)sizeof(struct {                                                                     \
		_Static_assert(__builtin_choose_expr(__builtin_constant_p(id),                      \
						    (uint64_t)(id) < 0x80000000u, 0),               \
			       "SPOOL_TRACE: the event id must be a constant below 0x80000000");   \
		int spool__ok;                                                                     \
	}))

/*
 * Switching an event off at build time: -DSPOOL_TRACE_OFF_<ID>, <ID> the id
 * as written at the call (an enum constant's name, or the number), turns
 * every call of that id into nothing, with any compiler: its arguments are
 * not evaluated. The test pastes the prefix to the call's first token, so a
 * call whose id starts with a parenthesis or an operator cannot be switched
 * off (and does not compile); write such ids as one name or number.
 */
#define SPOOL__FIRST(a, ...) a
#define SPOOL__SECOND_(a, b, ...) b
#define SPOOL__SECOND(...) SPOOL__SECOND_(__VA_ARGS__)
#define SPOOL__OFF_PROBE_1 ~, 1
#define SPOOL__PASTE_(a, b) a##b
#define SPOOL__PASTE(a, b) SPOOL__PASTE_(a, b)
#define SPOOL__OFF_TEST(x) SPOOL__SECOND(SPOOL__PASTE(SPOOL__OFF_PROBE_, x), 0, ~)
#define SPOOL__OFF_OF(...) SPOOL__OFF_TEST(SPOOL__FIRST(__VA_ARGS__, ~))

/* The move limit of SPOOL_TRACE_MOVE, plus one (0: no limit). */
#define SPOOL__LIM(n)                                                                              \
	((uint64_t)(n) + 1 + 0 * sizeof(struct {                                                   \
		 _Static_assert(__builtin_choose_expr(__builtin_constant_p(n),                     \
						     (uint64_t)(n) <= 65535u, 0),                  \
				"SPOOL_TRACE_MOVE: the limit must be a constant from 0 to 65535"); \
		 int spool__ok;                                                                    \
	 }))

/* SPOOL__PASTE, not SPOOL__CAT: SPOOL__SW0 expands SPOOL__CAT again, and a
 * macro is not expanded inside its own expansion. */
#define SPOOL__TRACE_SW(off, lim, ...) SPOOL__PASTE(SPOOL__SW, off)(lim, __VA_ARGS__)
#define SPOOL__SW0(lim, ...) SPOOL__CAT(SPOOL__T, SPOOL__NARG(__VA_ARGS__))(lim, __VA_ARGS__)
#define SPOOL__SW1(lim, ...) SPOOL__CAT(SPOOL__O, SPOOL__NARG(__VA_ARGS__))(__VA_ARGS__)

/* One event. */
#define SPOOL_TRACE(...)                                                                           \
	SPOOL__TRACE_SW(SPOOL__OFF_OF(SPOOL_TRACE_OFF_##__VA_ARGS__), 0, __VA_ARGS__)
/* One event that spool cc may write at most N trace calls later than where
 * it stands (0: where it stands; it may still carry earlier calls' events). */
#define SPOOL_TRACE_MOVE(n, ...)                                                                   \
	SPOOL__TRACE_SW(SPOOL__OFF_OF(SPOOL_TRACE_OFF_##__VA_ARGS__), SPOOL__LIM(n), __VA_ARGS__)

/* An event switched off: the id is still checked, the arguments are only
 * looked at (sizeof: not evaluated, but a variable traced only there is
 * still used). */
#define SPOOL__O_too_many(...) SPOOL__T_too_many()
#define SPOOL__O1(id) (SPOOL__CHECK_ID(id), SPOOL__OFF_MARK(id))
#define SPOOL__O2(id, a) (SPOOL__CHECK_ID(id), (void)sizeof(SPOOL__C(a)), SPOOL__OFF_MARK(id))
#define SPOOL__O3(id, a, b) (SPOOL__O2(id, a), (void)sizeof(SPOOL__C(b)))
#define SPOOL__O4(id, a, b, c) (SPOOL__O3(id, a, b), (void)sizeof(SPOOL__C(c)))
#define SPOOL__O5(id, a, b, c, d) (SPOOL__O4(id, a, b, c), (void)sizeof(SPOOL__C(d)))
#define SPOOL__O6(id, a, b, c, d, e) (SPOOL__O5(id, a, b, c, d), (void)sizeof(SPOOL__C(e)))
#define SPOOL__O7(id, a, b, c, d, e, f) (SPOOL__O6(id, a, b, c, d, e), (void)sizeof(SPOOL__C(f)))
#define SPOOL__C(x) ((int64_t)(x))

#ifdef SPOOL_CC

/* The first argument of a marker: the id in bits 0..31, the move limit
 * plus one (SPOOL__LIM) from bit 32 on. */
#define SPOOL__CTL(lim, id) ((uint64_t)(uint32_t)(id) | (uint64_t)(lim) << 32)

void spool__trace0(uint64_t ctl);
void spool__trace1(uint64_t ctl, int64_t);
void spool__trace2(uint64_t ctl, int64_t, int64_t);
void spool__trace3(uint64_t ctl, int64_t, int64_t, int64_t);
void spool__trace4(uint64_t ctl, int64_t, int64_t, int64_t, int64_t);
void spool__trace5(uint64_t ctl, int64_t, int64_t, int64_t, int64_t, int64_t);
void spool__trace6(uint64_t ctl, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
void spool__barrier(void);
void spool__off(uint32_t id);

/* What the rewritten calls call; `used` keeps it through clang's first
 * optimization round, the second one inlines it. */
static inline __attribute__((used)) void spool__emit(uint32_t id, uint32_t n, const int64_t *a)
{
	if (spool_trace_emit)
		spool_trace_emit(id, n, a);
}
/* An untimed record; an agent without the untimed entry writes a timed one,
 * which decodes the same (its own time is used). */
static inline __attribute__((used)) void spool__emit_nt(uint32_t id, uint32_t n,
							 const int64_t *a)
{
	if (spool_trace_emit_nt)
		spool_trace_emit_nt(id, n, a);
	else if (spool_trace_emit)
		spool_trace_emit(id, n, a);
}

#define SPOOL__T1(l, id) (SPOOL__CHECK_ID(id), spool__trace0(SPOOL__CTL(l, id)))
#define SPOOL__T2(l, id, a) (SPOOL__CHECK_ID(id), spool__trace1(SPOOL__CTL(l, id), SPOOL__C(a)))
#define SPOOL__T3(l, id, a, b)                                                                     \
	(SPOOL__CHECK_ID(id), spool__trace2(SPOOL__CTL(l, id), SPOOL__C(a), SPOOL__C(b)))
#define SPOOL__T4(l, id, a, b, c)                                                                  \
	(SPOOL__CHECK_ID(id),                                                                      \
	 spool__trace3(SPOOL__CTL(l, id), SPOOL__C(a), SPOOL__C(b), SPOOL__C(c)))
#define SPOOL__T5(l, id, a, b, c, d)                                                               \
	(SPOOL__CHECK_ID(id),                                                                      \
	 spool__trace4(SPOOL__CTL(l, id), SPOOL__C(a), SPOOL__C(b), SPOOL__C(c), SPOOL__C(d)))
#define SPOOL__T6(l, id, a, b, c, d, e)                                                            \
	(SPOOL__CHECK_ID(id), spool__trace5(SPOOL__CTL(l, id), SPOOL__C(a), SPOOL__C(b),           \
					    SPOOL__C(c), SPOOL__C(d), SPOOL__C(e)))
#define SPOOL__T7(l, id, a, b, c, d, e, f)                                                         \
	(SPOOL__CHECK_ID(id), spool__trace6(SPOOL__CTL(l, id), SPOOL__C(a), SPOOL__C(b),           \
					    SPOOL__C(c), SPOOL__C(d), SPOOL__C(e), SPOOL__C(f)))
#define SPOOL_TRACE_BARRIER() spool__barrier()
#define SPOOL__OFF_MARK(id) spool__off((uint32_t)(id))
/* spool-ccopt reads these ids and deletes the variables. */
#define SPOOL_TRACE_IDEMPOTENT(id)                                                                 \
	__attribute__((weak, visibility("hidden"))) const uint32_t SPOOL__CAT(spool__idem_,        \
									     __COUNTER__) = (id)

#else /* !SPOOL_CC: plain calls into the agent */

static inline void spool__emit(uint32_t id, uint32_t n, const int64_t *a)
{
	if (spool_trace_emit)
		spool_trace_emit(id, n, a);
}

#define SPOOL__EMITN(id, n, ...)                                                                   \
	(SPOOL__CHECK_ID(id), spool__emit((uint32_t)(id), n, (const int64_t[n]){__VA_ARGS__}))
#define SPOOL__T1(l, id) (SPOOL__CHECK_ID(id), spool__emit((uint32_t)(id), 0, (const int64_t *)0))
#define SPOOL__T2(l, id, a) SPOOL__EMITN(id, 1, SPOOL__C(a))
#define SPOOL__T3(l, id, a, b) SPOOL__EMITN(id, 2, SPOOL__C(a), SPOOL__C(b))
#define SPOOL__T4(l, id, a, b, c) SPOOL__EMITN(id, 3, SPOOL__C(a), SPOOL__C(b), SPOOL__C(c))
#define SPOOL__T5(l, id, a, b, c, d)                                                               \
	SPOOL__EMITN(id, 4, SPOOL__C(a), SPOOL__C(b), SPOOL__C(c), SPOOL__C(d))
#define SPOOL__T6(l, id, a, b, c, d, e)                                                            \
	SPOOL__EMITN(id, 5, SPOOL__C(a), SPOOL__C(b), SPOOL__C(c), SPOOL__C(d), SPOOL__C(e))
#define SPOOL__T7(l, id, a, b, c, d, e, f)                                                         \
	SPOOL__EMITN(id, 6, SPOOL__C(a), SPOOL__C(b), SPOOL__C(c), SPOOL__C(d), SPOOL__C(e),       \
		     SPOOL__C(f))
#define SPOOL_TRACE_BARRIER() ((void)0)
#define SPOOL__OFF_MARK(id) ((void)0)
#define SPOOL_TRACE_IDEMPOTENT(id)                                                                 \
	_Static_assert((uint64_t)(id) < 0x80000000u, "SPOOL_TRACE_IDEMPOTENT: bad event id")

#endif /* SPOOL_CC */

#ifdef __cplusplus
}
#endif

#endif
