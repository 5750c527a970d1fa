// SPDX-License-Identifier: MIT
/*
 * ccopt.c - spool-ccopt, the trace optimizer of `spool cc` (doc/cc.md): reads
 * LLVM bitcode that clang made from a source including spool/trace.h with
 * SPOOL_CC defined, rewrites the trace calls, writes bitcode back. The only
 * code in spool that links LLVM (the LLVM-C API of LLVM 14).
 *
 *	spool-ccopt [--table FILE] [--explain] [--name SOURCE] IN.bc OUT.bc
 *	(and --max-codes, --profile, --round-gain, --no-*: see usage())
 *
 * The calls it rewrites are the marker calls spool__traceN(id, a1..aN). In
 * each basic block, the marker calls not separated by a barrier
 * (spool__barrier) or by a call that may not return form a group: one call
 * of spool__emit, placed at the group's last marker (every traced value
 * dominates it), carries the values that are neither constants nor already
 * emitted, under a merged event id; the table says how to rebuild every
 * original event from them. A lone marker call with no constant argument is
 * emitted as it is (unless it may be untimed, below: that needs a table
 * entry; under --max-codes it stays as it is). Either way no marker call
 * survives, so the program never links against the markers.
 *
 * A merged record that follows the block's previous record through
 * straight-line code calls spool__emit_nt instead: the agent reads no TSC
 * for it and the decoder estimates its time (table t<c>, may_be_untimed).
 *
 * Why "may not return" splits a group: the merged call sits at the group's
 * end, so an exit or longjmp between two trace calls would lose the first.
 * Calls carrying `willreturn` (most intrinsics, functions clang proved
 * return) do not split.
 *
 * The table goes into a non-allocated section through module-level
 * assembly, and a weak hidden constructor (registered in .init_array by the
 * same assembly) emits the table's hash once per process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>

#include "../util/outfile.h"
#include "cc_table.h"

#define MAX_TRACE_ARGS 6

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -EINVAL;
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return 0;
		}
		{
			size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
			char *p = realloc(b->p, cap);

			if (!p)
				return -ENOMEM;
			b->p = p;
			b->cap = cap;
		}
	}
}

/* One marker call of a group. */
struct site {
	LLVMValueRef call;
	uint32_t id;
	unsigned nargs;
	unsigned lim; /* SPOOL_TRACE_MOVE's limit plus one; 0: none */
};

/* The record a block wrote last, while nothing since may have written
 * another into the thread's trace: a later group of the same block can take
 * values from it ("p<k>" in the table: value k of the previous record). */
struct prev_rec {
	LLVMValueRef vals[CC_MAX_EMIT];
	unsigned n;
	int valid;
	char ref[24]; /* "m<index>" or "u<id>": what the decoder checks it is */
	LLVMValueRef call; /* the emit call that writes it */
};

#define MAX_IDEM 256
#define LOOP_WEIGHT 10 /* --max-codes: a loop runs its body this many times */

struct group_score {
	unsigned ord;
	uint64_t score;
};

/* --profile: how often each event id ran in an earlier run ("ID COUNT"
 * lines, spool decode --counts), and how many marker calls of the unit
 * trace that id (so a count shared by several calls is split among them). */
struct prof_ent {
	uint32_t id;
	uint32_t sites;
	uint64_t count;
};

struct opt {
	LLVMModuleRef mod;
	LLVMContextRef ctx;
	LLVMBuilderRef b;
	LLVMValueRef emit_fn; /* spool__emit */
	LLVMTypeRef emit_ty;
	LLVMValueRef emit_nt_fn; /* spool__emit_nt (untimed records); NULL: an older header */
	LLVMTypeRef emit_nt_ty;
	LLVMTypeRef i32, i64;
	unsigned willreturn;
	struct buf table;		/* body: "m ..." and "e ..." lines */
	LLVMValueRef merged[CC_MAX_MERGED]; /* merged calls, their id set at the end */
	unsigned nmerged;
	/* what --explain prints */
	unsigned sites, groups, singles, dropped_consts, dropped_repeats, barriers, formulas, sunk;
	unsigned loads, off, limited, collapsed, prev_reused, hoisted, untimed;
	unsigned rounds;		/* moving rounds done */
	double round_gain;		/* --round-gain: percent a round must save to go on */
	double cost_start, cost_end;	/* estimated trace words per run, before and after */
	int explain, no_formulas, no_sink, no_prev, no_cycles, no_share, no_untimed;
	char *full[CC_MAX_MERGED]; /* each merged event's lines, for sharing */
	/* --max-codes */
	int max_codes, collect;		/* limit (-1: none); the scoring pass */
	unsigned ngroup, cur_depth;	/* groups so far (their order numbers); block's loop depth */
	struct group_score *scores;	/* the scoring pass's merged groups */
	size_t nscores;
	unsigned char *allowed;		/* by group number: may be merged */
	unsigned nallowed, over_limit;
	struct prof_ent *prof;		/* --profile, sorted by id; NULL: static estimate */
	size_t nprof;
	uint32_t idem[MAX_IDEM]; /* SPOOL_TRACE_IDEMPOTENT ids */
	unsigned nidem;
	struct prev_rec prev;
	const char *name; /* for messages */
	LLVMValueRef *erase; /* barrier calls, erased after the walk */
	size_t nerase, cap_erase;
};

static int marker_arity(const char *name)
{
	if (strncmp(name, "spool__trace", 12) || !name[12] || name[13])
		return -1;
	if (name[12] < '0' || name[12] > '0' + MAX_TRACE_ARGS)
		return -1;
	return name[12] - '0';
}

static const char *callee_name(LLVMValueRef call)
{
	LLVMValueRef f = LLVMGetCalledValue(call);
	size_t len;

	if (!f || !LLVMIsAFunction(f))
		return NULL;
	return LLVMGetValueName2(f, &len);
}

static int is_marker_call(LLVMValueRef v)
{
	const char *name = LLVMIsACallInst(v) ? callee_name(v) : NULL;

	return name && marker_arity(name) >= 0;
}

static int may_not_return(struct opt *o, LLVMValueRef call)
{
	LLVMValueRef f = LLVMGetCalledValue(call);

	if (LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, o->willreturn))
		return 0;
	if (f && LLVMIsAFunction(f) &&
	    LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, o->willreturn))
		return 0;
	return 1;
}

/*
 * Sinking: the trace calls at the end of a block (after its last barrier or
 * call that may not return) move to the start of each successor whose only
 * predecessor is this block, so a straight chain of blocks (all of -O0's
 * code) or both arms of a branch merge with what follows. The values they
 * trace dominate the successors (the block is their only way in), every path
 * still executes each trace call once and in the same order, and nothing
 * that may not return is crossed, so no event is lost or added.
 */
#define SINK_MAX_SUCC 2	   /* a br; wider switches would copy too much */

struct edge {
	LLVMBasicBlockRef to, from;
};

static int edge_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct edge *)a)->to;
	uintptr_t y = (uintptr_t)((const struct edge *)b)->to;

	return x < y ? -1 : x > y;
}

/* sb's predecessor if sb is the target of exactly one edge (edges sorted
 * by target), else NULL. */
static LLVMBasicBlockRef single_pred(struct edge *edges, size_t nedges, LLVMBasicBlockRef sb)
{
	struct edge key = {sb, NULL};
	struct edge *lo = bsearch(&key, edges, nedges, sizeof(*edges), edge_cmp);

	/* bsearch finds one of the equal entries: look both ways. */
	if (!lo || (lo > edges && lo[-1].to == sb) || (lo + 1 < edges + nedges && lo[1].to == sb))
		return NULL;
	return lo->from;
}

/* Whether i ends a group: a barrier, or a call that may not return. */
static int is_split(struct opt *o, LLVMValueRef i)
{
	const char *name;

	if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
		return 0;
	if (is_marker_call(i))
		return 0;
	name = callee_name(i);
	if (name && !strcmp(name, "spool__barrier"))
		return 1;
	return may_not_return(o, i);
}

/*
 * Loads across trace calls. clang must assume that the marker calls write
 * memory, so a value traced twice with a trace call between (a->id in
 * three events) is loaded again, and the group would emit it twice. The
 * markers write nothing the program can see: a load of the same address,
 * reached from an earlier one through nothing but trace calls and
 * instructions that do not write memory (within a block, or up a chain of
 * blocks that each have one predecessor), reads the same value and is
 * replaced by it. Only loads that clang could not merge for that reason are
 * touched: a trace call must lie between the two.
 */
#define CSE_SCAN 256

static int writes_nothing(LLVMValueRef i)
{
	const char *name;

	if (LLVMIsAStoreInst(i) || LLVMIsAFenceInst(i) || LLVMIsAAtomicRMWInst(i) ||
	    LLVMIsAAtomicCmpXchgInst(i) || LLVMIsAVAArgInst(i) || LLVMIsAInvokeInst(i))
		return 0;
	if (LLVMIsALoadInst(i))
		return !LLVMGetVolatile(i) && LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic;
	if (!LLVMIsACallInst(i))
		return 1;
	name = callee_name(i);
	return name && !strncmp(name, "llvm.dbg.", 9);
}

/* Whether two pointers are certainly the same address: the same value, or
 * GEPs of the same type from the same address with the same indices. -O0
 * code computes &a->id anew for every use (a load of a's stack slot, then a
 * GEP), so values alone would never match there. */
static int same_ptr(LLVMValueRef p, LLVMValueRef q)
{
	for (unsigned depth = 0; depth < 8; depth++) {
		unsigned n;

		if (p == q)
			return 1;
		if (!LLVMIsAGetElementPtrInst(p) || !LLVMIsAGetElementPtrInst(q) ||
		    LLVMGetGEPSourceElementType(p) != LLVMGetGEPSourceElementType(q) ||
		    LLVMTypeOf(p) != LLVMTypeOf(q))
			return 0;
		n = (unsigned)LLVMGetNumOperands(p);
		if ((unsigned)LLVMGetNumOperands(q) != n)
			return 0;
		for (unsigned k = 1; k < n; k++)
			if (LLVMGetOperand(p, k) != LLVMGetOperand(q, k))
				return 0;
		p = LLVMGetOperand(p, 0);
		q = LLVMGetOperand(q, 0);
	}
	return 0;
}

/* Whether a store through sp certainly leaves a load through lp alone: both
 * are GEPs from the same base with the same source type, and they differ
 * only in indices at array levels (or the first, pointer-level one) and in
 * the last index, a struct field index where both are different constants
 * naming fields of the accessed type, an integer or a pointer. Two fields of
 * one struct type never overlap, and distinct instances of a struct in an
 * array never partially overlap (C forbids indexing a sub-array out of its
 * bounds), so neither access spills into the other. */
static int strict_aliasing = 1; /* --no-strict-aliasing (spool cc: -fno-strict-aliasing) */

static int disjoint_fields(LLVMValueRef sp, LLVMValueRef lp, LLVMTypeRef st, LLVMTypeRef lt)
{
	LLVMTypeRef t;
	unsigned n;

	if (st != lt || (LLVMGetTypeKind(st) != LLVMIntegerTypeKind &&
			 LLVMGetTypeKind(st) != LLVMPointerTypeKind))
		return 0;
	/* Different bases: with C's aliasing rules (clang's default, which its
	 * own -O2 relies on), two pointers to one struct type point to the same
	 * object or to objects that do not overlap, as array elements do. */
	if (!LLVMIsAGetElementPtrInst(sp) || !LLVMIsAGetElementPtrInst(lp) ||
	    (!strict_aliasing && !same_ptr(LLVMGetOperand(sp, 0), LLVMGetOperand(lp, 0))) ||
	    LLVMGetGEPSourceElementType(sp) != LLVMGetGEPSourceElementType(lp))
		return 0;
	n = (unsigned)LLVMGetNumOperands(sp);
	if ((unsigned)LLVMGetNumOperands(lp) != n || n < 3)
		return 0;
	t = LLVMGetGEPSourceElementType(sp);
	/* Operand k (k >= 2) indexes into t. */
	for (unsigned k = 2; k < n; k++) {
		LLVMValueRef a = LLVMGetOperand(sp, k), b = LLVMGetOperand(lp, k);
		LLVMTypeKind tk = LLVMGetTypeKind(t);

		if (tk == LLVMStructTypeKind) {
			long long ia, ib;

			if (!LLVMIsAConstantInt(a) || !LLVMIsAConstantInt(b))
				return 0;
			ia = LLVMConstIntGetSExtValue(a);
			ib = LLVMConstIntGetSExtValue(b);
			if (ia < 0 || ib < 0 ||
			    (unsigned)ia >= LLVMCountStructElementTypes(t) ||
			    (unsigned)ib >= LLVMCountStructElementTypes(t))
				return 0;
			if (ia != ib)
				return k == n - 1 && LLVMStructGetTypeAtIndex(t, (unsigned)ia) == lt &&
				       LLVMStructGetTypeAtIndex(t, (unsigned)ib) == lt;
			t = LLVMStructGetTypeAtIndex(t, (unsigned)ia);
		} else if (tk == LLVMArrayTypeKind) {
			t = LLVMGetElementType(t);
		} else {
			return 0;
		}
	}
	return 0; /* no two different fields */
}

static int is_barrier(LLVMValueRef i)
{
	const char *name = LLVMIsACallInst(i) ? callee_name(i) : NULL;

	return name && !strcmp(name, "spool__barrier");
}

static int plain_load(LLVMValueRef i)
{
	return LLVMIsALoadInst(i) && !LLVMGetVolatile(i) &&
	       LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic;
}

/* Whether a trace call uses v. */
static int traced_value(LLVMValueRef v)
{
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
		if (is_marker_call(LLVMGetUser(u)))
			return 1;
	return 0;
}

/* Whether v is used only to be traced: by trace calls, or by integer
 * arithmetic (the formulas' operations) used only to be traced. */
static int traced_only(LLVMValueRef v, unsigned depth)
{
	LLVMUseRef u = LLVMGetFirstUse(v);

	if (!u || depth > 4)
		return 0;
	for (; u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (is_marker_call(user))
			continue;
		if (!LLVMIsAInstruction(user))
			return 0;
		switch (LLVMGetInstructionOpcode(user)) {
		case LLVMAdd:
		case LLVMSub:
		case LLVMMul:
		case LLVMXor:
		case LLVMSExt:
		case LLVMZExt:
		case LLVMTrunc:
			if (traced_only(user, depth + 1))
				continue;
			/* fall through */
		default:
			return 0;
		}
	}
	return 1;
}

/* Whether p is a stack slot only loaded from and stored to (its address
 * never escapes): nothing but a store to it can change it, not a call, not
 * a store through another pointer. -O0 keeps every local variable in one. */
static int private_slot(LLVMValueRef p)
{
	if (!LLVMIsAAllocaInst(p))
		return 0;
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (LLVMIsALoadInst(user))
			continue;
		if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p &&
		    LLVMGetOperand(user, 0) != p)
			continue;
		return 0;
	}
	return 1;
}

static void cse_loads(struct opt *o, LLVMValueRef fn, struct edge *edges, size_t nedges)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef i, next;

		for (i = LLVMGetFirstInstruction(bb); i; i = next) {
			LLVMValueRef ptr, j, found = NULL;
			LLVMBasicBlockRef jb = bb;
			int crossed = 0, found_crossed = 0, n = 0, slot;

			next = LLVMGetNextInstruction(i);
			if (!plain_load(i))
				continue;
			ptr = LLVMGetOperand(i, 0);
			slot = private_slot(ptr);
			for (j = LLVMGetPreviousInstruction(i); n < CSE_SCAN; n++) {
				if (!j) {
					/* Up a single-predecessor chain (the entry block
					 * has none; a loop back to bb is refused). */
					jb = single_pred(edges, nedges, jb);
					if (!jb || jb == bb)
						break;
					j = LLVMGetBasicBlockTerminator(jb);
					continue;
				}
				if (plain_load(j) && LLVMTypeOf(j) == LLVMTypeOf(i) &&
				    same_ptr(LLVMGetOperand(j, 0), ptr)) {
					/* Go on up: an earlier load of the address
					 * may be the one the trace calls before use;
					 * one they use is the best. */
					found = j;
					found_crossed = crossed;
					if (crossed && traced_value(j))
						break;
					j = LLVMGetPreviousInstruction(j);
					continue;
				}
				if (is_marker_call(j) || is_barrier(j))
					crossed = 1;
				else if (slot &&
					 !(LLVMIsAStoreInst(j) && LLVMGetOperand(j, 1) == ptr))
					;
				else if (LLVMIsAStoreInst(j) && !LLVMGetVolatile(j) &&
					 LLVMGetOrdering(j) == LLVMAtomicOrderingNotAtomic &&
					 disjoint_fields(LLVMGetOperand(j, 1), ptr,
							 LLVMTypeOf(LLVMGetOperand(j, 0)),
							 LLVMTypeOf(i)))
					;
				else if (!writes_nothing(j))
					break;
				j = LLVMGetPreviousInstruction(j);
			}
			/* Without a trace call between, only a stack slot's
			 * load that the program uses just to trace is
			 * merged: -O0 loads a variable again for every use in
			 * a trace call's arguments (a, b, a * b), and the
			 * program's own computation is left as it is. */
			if (!found || (!found_crossed && !(slot && traced_only(i, 0))))
				continue;
			LLVMReplaceAllUsesWith(i, found);
			LLVMInstructionEraseFromParent(i);
			o->loads++;
		}
	}
}

/* Every CFG edge of fn, sorted by target: a block's predecessor count is
 * the number of times it appears. */
static int fn_edges(LLVMValueRef fn, struct edge **out, size_t *nout)
{
	size_t nedges = 0, cap = 0;
	struct edge *edges = NULL;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
		unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;

		if (nedges + ns > cap) {
			size_t ncap = (cap + ns) * 2 + 16;
			struct edge *p = realloc(edges, ncap * sizeof(*p));

			if (!p) {
				free(edges);
				return -ENOMEM;
			}
			edges = p;
			cap = ncap;
		}
		for (unsigned k = 0; k < ns; k++) {
			edges[nedges].to = LLVMGetSuccessor(t, k);
			edges[nedges++].from = bb;
		}
	}
	if (nedges)
		qsort(edges, nedges, sizeof(*edges), edge_cmp);
	*out = edges;
	*nout = nedges;
	return 0;
}

/* One step of sinking over fn's blocks: the calls moved. */
static unsigned sink_step(struct opt *o, LLVMValueRef fn, struct edge *edges, size_t nedges)
{
	unsigned moved = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb), first = NULL, i;
		LLVMBasicBlockRef succ[SINK_MAX_SUCC];
		unsigned ns, nm = 0;

		if (!t || LLVMGetInstructionOpcode(t) != LLVMBr)
			continue;
		ns = LLVMGetNumSuccessors(t);
		if (ns > SINK_MAX_SUCC)
			continue;
		{
			unsigned k;

			for (k = 0; k < ns; k++) {
				succ[k] = LLVMGetSuccessor(t, k);
				if (succ[k] == bb || !single_pred(edges, nedges, succ[k]))
					break;
			}
			if (k < ns)
				continue;
		}
		if (ns == 2 && succ[0] == succ[1])
			continue;
		/* The trailing trace calls: from the last split on. */
		for (i = LLVMGetPreviousInstruction(t); i; i = LLVMGetPreviousInstruction(i)) {
			if (is_split(o, i))
				break;
			if (is_marker_call(i)) {
				first = i;
				nm++;
			}
		}
		if (!nm)
			continue;
		for (unsigned k = 0; k < ns; k++) {
			LLVMValueRef at = LLVMGetFirstInstruction(succ[k]);

			while (at && LLVMIsAPHINode(at))
				at = LLVMGetNextInstruction(at);
			if (!at || LLVMIsALandingPadInst(at)) {
				nm = 0;
				break;
			}
		}
		if (!nm)
			continue;
		for (unsigned k = 0; k < ns; k++) {
			LLVMValueRef at = LLVMGetFirstInstruction(succ[k]);

			while (LLVMIsAPHINode(at))
				at = LLVMGetNextInstruction(at);
			for (i = first; i != t; i = LLVMGetNextInstruction(i)) {
				LLVMValueRef c;

				if (!is_marker_call(i))
					continue;
				c = LLVMInstructionClone(i);
				LLVMPositionBuilderBefore(o->b, at);
				LLVMInsertIntoBuilder(o->b, c);
			}
		}
		for (i = first; i != t;) {
			LLVMValueRef next = LLVMGetNextInstruction(i);

			if (is_marker_call(i))
				LLVMInstructionEraseFromParent(i);
			i = next;
		}
		o->sunk += nm;
		moved += nm;
	}
	return moved;
}

/*
 * Hoisting, the mirror of sinking: the trace calls at the start of a block
 * with several predecessors (before its first split), when every
 * predecessor ends in a plain branch to it alone, move to the end of each
 * predecessor, where they join its trailing calls. Every path into the
 * block passes exactly one predecessor's end and then the block's start,
 * with no split between, so each call still runs once and in order. A
 * call's values must be there: constants, values from before the block
 * (they dominate every predecessor's end), or the block's phis, which
 * become their incoming value. Only a prefix of the calls moves (order),
 * and only when some predecessor has trailing calls to join. Sinking never
 * undoes it: its targets have one predecessor.
 */
#define HOIST_MAX_PREDS 4

/* Whether v can be had at the end of bb's predecessors: not computed in bb,
 * one of bb's phis, a stack slot's value (slot_load_at_start), or integer
 * arithmetic on such values (computed again there, on the same path). */
static int slot_load_at_start(LLVMValueRef v);

static int hoistable(LLVMValueRef v, LLVMBasicBlockRef bb, unsigned depth)
{
	if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != bb || LLVMIsAPHINode(v))
		return 1;
	if (slot_load_at_start(v))
		return 1;
	if (depth >= 4)
		return 0;
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMAdd:
	case LLVMSub:
	case LLVMMul:
	case LLVMAnd:
	case LLVMOr:
	case LLVMXor:
	case LLVMShl:
	case LLVMLShr:
	case LLVMAShr:
		if (!hoistable(LLVMGetOperand(v, 1), bb, depth + 1))
			return 0;
		/* fall through */
	case LLVMSExt:
	case LLVMZExt:
	case LLVMTrunc:
		return hoistable(LLVMGetOperand(v, 0), bb, depth + 1);
	default:
		return 0;
	}
}

/* v (hoistable) as computed at the end of pred, before t. */
static LLVMValueRef hoist_value(struct opt *o, LLVMValueRef v, LLVMBasicBlockRef bb,
				LLVMBasicBlockRef pred, LLVMValueRef t)
{
	LLVMValueRef c;

	if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != bb)
		return v;
	if (LLVMIsAPHINode(v)) {
		for (unsigned q = 0; q < LLVMCountIncoming(v); q++)
			if (LLVMGetIncomingBlock(v, q) == pred)
				return LLVMGetIncomingValue(v, q);
		return v; /* not reached: pred is a predecessor */
	}
	LLVMPositionBuilderBefore(o->b, t);
	if (LLVMIsALoadInst(v)) {
		c = LLVMBuildLoad2(o->b, LLVMTypeOf(v), LLVMGetOperand(v, 0), "");
		LLVMSetAlignment(c, LLVMGetAlignment(v));
		return c;
	}
	c = LLVMInstructionClone(v);
	for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(v); k++)
		LLVMSetOperand(c, k, hoist_value(o, LLVMGetOperand(v, k), bb, pred, t));
	LLVMPositionBuilderBefore(o->b, t);
	LLVMInsertIntoBuilder(o->b, c);
	return c;
}

/* A load of a private stack slot (-O0's variables) that no store of its
 * block precedes: the same load at the end of a predecessor reads the same. */
static int slot_load_at_start(LLVMValueRef v)
{
	LLVMValueRef ptr;

	if (!plain_load(v) || !private_slot(ptr = LLVMGetOperand(v, 0)))
		return 0;
	for (LLVMValueRef j = LLVMGetPreviousInstruction(v); j; j = LLVMGetPreviousInstruction(j))
		if (LLVMIsAStoreInst(j) && LLVMGetOperand(j, 1) == ptr)
			return 0;
	return 1;
}

static unsigned hoist_step(struct opt *o, LLVMValueRef fn, struct edge *edges, size_t nedges)
{
	unsigned moved = 0;

	for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(LLVMGetFirstBasicBlock(fn)); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		struct edge key = {bb, NULL}, *e;
		LLVMBasicBlockRef pred[HOIST_MAX_PREDS];
		LLVMValueRef calls[CC_MAX_EMIT], i;
		unsigned np = 0, nc = 0, joins = 0;

		e = bsearch(&key, edges, nedges, sizeof(*edges), edge_cmp);
		if (!e)
			continue;
		while (e > edges && e[-1].to == bb)
			e--;
		for (; e < edges + nedges && e->to == bb; e++) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(e->from);

			if (np == HOIST_MAX_PREDS || e->from == bb || !t ||
			    LLVMGetInstructionOpcode(t) != LLVMBr || LLVMGetNumSuccessors(t) != 1) {
				np = 0;
				break;
			}
			pred[np++] = e->from;
		}
		if (np < 2)
			continue;
		/* The leading calls whose values are there in every predecessor. */
		for (i = LLVMGetFirstInstruction(bb); i && nc < CC_MAX_EMIT;
		     i = LLVMGetNextInstruction(i)) {
			unsigned n, k;

			if (LLVMIsAPHINode(i))
				continue;
			if (LLVMIsALandingPadInst(i) || is_split(o, i))
				break;
			if (!is_marker_call(i))
				continue;
			n = (unsigned)LLVMGetNumArgOperands(i);
			for (k = 0; k < n; k++) {
				LLVMValueRef v = LLVMGetOperand(i, k);

				if (!hoistable(v, bb, 0))
					break;
			}
			if (k < n)
				break;
			calls[nc++] = i;
		}
		if (!nc)
			continue;
		for (unsigned k = 0; k < np; k++) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(pred[k]);

			for (i = LLVMGetPreviousInstruction(t); i && !is_split(o, i);
			     i = LLVMGetPreviousInstruction(i))
				if (is_marker_call(i)) {
					joins++;
					break;
				}
		}
		if (!joins)
			continue;
		for (unsigned k = 0; k < np; k++) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(pred[k]);

			for (unsigned c = 0; c < nc; c++) {
				LLVMValueRef x = LLVMInstructionClone(calls[c]);
				unsigned n = (unsigned)LLVMGetNumArgOperands(x);

				for (unsigned a = 0; a < n; a++) {
					LLVMValueRef v = LLVMGetOperand(x, a);

					LLVMSetOperand(x, a, hoist_value(o, v, bb, pred[k], t));
				}
				LLVMPositionBuilderBefore(o->b, t);
				LLVMInsertIntoBuilder(o->b, x);
			}
		}
		for (unsigned c = 0; c < nc; c++)
			LLVMInstructionEraseFromParent(calls[c]);
		o->hoisted += nc;
		moved += nc;
	}
	return moved;
}

/*
 * The estimated ring words one run of fn writes: per block, its groups as
 * do_block would form them (4 words of header each, plus its distinct
 * values that are not constants), times the block's estimated frequency:
 * 1 for the entry, a block's share split evenly among its successors later
 * in the layout (clang lays blocks out in order; edges back are loops),
 * times LOOP_WEIGHT per loop level. Rough, but it moves the right way: a
 * call that joins another group saves its header, one sunk into both arms
 * of a branch costs each arm half.
 */
static double fn_cost(struct opt *o, LLVMValueRef fn, const unsigned *depth)
{
	unsigned nb = LLVMCountBasicBlocks(fn), b = 0;
	LLVMBasicBlockRef *bbs = calloc(nb + 1, sizeof(*bbs));
	double *freq = calloc(nb + 1, sizeof(*freq)), cost = 0;

	if (!bbs || !freq)
		goto out;
	LLVMGetBasicBlocks(fn, bbs);
	if (nb)
		freq[0] = 1;
	for (b = 0; b < nb; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[b]);
		unsigned ns = t ? LLVMGetNumSuccessors(t) : 0, fwd = 0;
		LLVMValueRef vals[CC_MAX_EMIT];
		unsigned nv = 0, nm = 0;
		double w = freq[b];

		for (unsigned k = 0; k < ns; k++)
			for (unsigned s = b + 1; s < nb; s++)
				fwd += bbs[s] == LLVMGetSuccessor(t, k);
		for (unsigned k = 0; k < ns && fwd; k++)
			for (unsigned s = b + 1; s < nb; s++)
				if (bbs[s] == LLVMGetSuccessor(t, k))
					freq[s] += w / fwd;
		for (unsigned k = 0; depth && k < depth[b] && k < 6; k++)
			w *= LOOP_WEIGHT;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bbs[b]); i;
		     i = LLVMGetNextInstruction(i)) {
			if (is_marker_call(i)) {
				unsigned n = (unsigned)LLVMGetNumArgOperands(i);

				nm++;
				for (unsigned a = 1; a < n; a++) {
					LLVMValueRef v = LLVMGetOperand(i, a);
					unsigned k;

					if (LLVMIsAConstantInt(v))
						continue;
					for (k = 0; k < nv && vals[k] != v; k++)
						;
					if (k == nv && nv < CC_MAX_EMIT)
						vals[nv++] = v;
				}
			}
			if ((is_split(o, i) || !LLVMGetNextInstruction(i)) && nm) {
				cost += w * (4 + nv);
				nv = nm = 0;
			}
		}
	}
out:
	free(bbs);
	free(freq);
	return cost;
}

static unsigned *loop_depths(LLVMValueRef fn);

/* Every defined function but the emit helpers. */
static int is_body(struct opt *o, LLVMValueRef fn)
{
	return !LLVMIsDeclaration(fn) && fn != o->emit_fn && fn != o->emit_nt_fn;
}

/* depths: each body's loop_depths, in function order (moving leaves the
 * CFG as it is, so they are computed once). */
static double module_cost(struct opt *o, unsigned *const *depths)
{
	double cost = 0;
	size_t k = 0;

	for (LLVMValueRef fn = LLVMGetFirstFunction(o->mod); fn; fn = LLVMGetNextFunction(fn))
		if (is_body(o, fn))
			cost += fn_cost(o, fn, depths[k++]);
	return cost;
}

/*
 * The moving rounds. A round merges loads across trace calls, sinks each
 * block's trailing calls one block down and hoists join blocks' leading
 * calls one block up, then merges loads again (moved calls put trace calls
 * between loads that had none). A move can open the next (a chain of
 * blocks moves one block per round), so rounds repeat until one saves less
 * than --round-gain percent of the estimated trace words per run
 * (module_cost), or moves nothing, or ROUNDS_MAX are done. Grouping and the
 * rest of the rewrite then run once, on where the calls ended up.
 */
#define ROUNDS_MAX 32
#define SINK_MAX_STEPS 16 /* a chain moves one block per step at worst */
#define ROUND_GAIN 1.0 /* --round-gain's default, percent */

static int move_rounds(struct opt *o)
{
	size_t nf = 0, k = 0;
	unsigned **depths;
	double before;
	int rc = 0;

	for (LLVMValueRef fn = LLVMGetFirstFunction(o->mod); fn; fn = LLVMGetNextFunction(fn))
		nf += is_body(o, fn);
	depths = calloc(nf + 1, sizeof(*depths));
	if (!depths)
		return -ENOMEM;
	for (LLVMValueRef fn = LLVMGetFirstFunction(o->mod); fn; fn = LLVMGetNextFunction(fn))
		if (is_body(o, fn))
			depths[k++] = loop_depths(fn); /* NULL (no memory): depth 0 */
	before = module_cost(o, depths);
	o->cost_start = o->cost_end = before;
	for (unsigned r = 0; r < ROUNDS_MAX; r++) {
		unsigned moved = 0, loads = o->loads;
		double after;

		for (LLVMValueRef fn = LLVMGetFirstFunction(o->mod); fn;
		     fn = LLVMGetNextFunction(fn)) {
			struct edge *edges;
			size_t nedges;

			if (!is_body(o, fn))
				continue;
			if (fn_edges(fn, &edges, &nedges)) {
				rc = -ENOMEM;
				goto out;
			}
			cse_loads(o, fn, edges, nedges);
			if (!o->no_sink) {
				/* Sinking down a chain of blocks costs nothing until
				 * it joins a group: no round ends in the middle. */
				for (unsigned k = 0, m = 1; m && k < SINK_MAX_STEPS; k++) {
					m = sink_step(o, fn, edges, nedges);
					moved += m;
				}
				moved += hoist_step(o, fn, edges, nedges);
			}
			cse_loads(o, fn, edges, nedges);
			free(edges);
		}
		after = module_cost(o, depths);
		o->rounds++;
		o->cost_end = after;
		if (!moved && o->loads == loads)
			break;
		if (before - after < before * o->round_gain / 100.0)
			break;
		before = after;
	}
out:
	for (k = 0; k < nf; k++)
		free(depths[k]);
	free(depths);
	return rc;
}

/* Build `spool__emit(id, n, vals)` (nt: spool__emit_nt, an untimed record)
 * before `at`; the array lives in the function's entry block so it is one
 * stack slot per group. */
static LLVMValueRef build_emit(struct opt *o, LLVMValueRef at, LLVMValueRef id,
			       LLVMValueRef *vals, unsigned n, int nt)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(
		LLVMGetInstructionParent(at)));
	LLVMTypeRef ptr_ty = LLVMPointerType(o->i64, 0);
	LLVMValueRef args[3], arr = NULL, ptr;

	if (n) {
		LLVMTypeRef arr_ty = LLVMArrayType(o->i64, n);

		LLVMPositionBuilderBefore(o->b, LLVMGetFirstInstruction(entry));
		arr = LLVMBuildAlloca(o->b, arr_ty, "spool.args");
		LLVMPositionBuilderBefore(o->b, at);
		for (unsigned i = 0; i < n; i++) {
			LLVMValueRef idx[2] = {LLVMConstInt(o->i32, 0, 0), LLVMConstInt(o->i32, i, 0)};
			LLVMValueRef slot = LLVMBuildInBoundsGEP2(o->b, arr_ty, arr, idx, 2, "");

			LLVMValueRef v = vals[i];

			/* Formula leaves may be narrower: the host expects them
			 * sign-extended (see formula_walk). */
			if (LLVMTypeOf(v) != o->i64)
				v = LLVMBuildSExt(o->b, v, o->i64, "");
			LLVMBuildStore(o->b, v, slot);
		}
		{
			LLVMValueRef idx[2] = {LLVMConstInt(o->i32, 0, 0), LLVMConstInt(o->i32, 0, 0)};

			ptr = LLVMBuildInBoundsGEP2(o->b, arr_ty, arr, idx, 2, "");
		}
	} else {
		LLVMPositionBuilderBefore(o->b, at);
		ptr = LLVMConstPointerNull(ptr_ty);
	}
	args[0] = id;
	args[1] = LLVMConstInt(o->i32, n, 0);
	args[2] = ptr;
	if (nt)
		return LLVMBuildCall2(o->b, o->emit_nt_ty, o->emit_nt_fn, args, 3, "");
	return LLVMBuildCall2(o->b, o->emit_ty, o->emit_fn, args, 3, "");
}

static int is_const(LLVMValueRef v, int64_t *c)
{
	if (!LLVMIsAConstantInt(v))
		return 0;
	*c = LLVMConstIntGetSExtValue(v);
	return 1;
}

/*
 * Formulas: a traced value computed by +, -, *, ^ (and the casts between
 * integer widths) from values the group emits anyway or from one value the
 * program computes only to trace it is left to the host. The table gets the
 * computation in postfix: a<k> (an emitted value), c<int> (a constant), then
 * +<w> -<w> *<w> ^<w> (the operation on w-bit integers), s<w> z<w> (sign- or
 * zero-extension from w bits), t<w> (truncation to w bits), separated by
 * commas. Every value on the host's stack is the int64_t sign extension of
 * its w bits, so the host's wrapping 64-bit arithmetic followed by that
 * extension gives exactly what the target computed.
 */
#define FORMULA_DEPTH 4
#define FORMULA_LEAVES 4

struct formula {
	LLVMValueRef leaf[FORMULA_LEAVES];
	unsigned nleaf, nops;
	const struct prev_rec *prev; /* values a leaf may also come from */
};

/* v's index in the previous record, or -1u. */
static unsigned prev_index(const struct prev_rec *p, LLVMValueRef v)
{
	for (unsigned k = 0; p && p->valid && k < p->n; k++)
		if (p->vals[k] == v)
			return k;
	return -1u;
}

static unsigned int_width(LLVMValueRef v)
{
	LLVMTypeRef t = LLVMTypeOf(v);

	return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

static char formula_op(LLVMValueRef v)
{
	if (!LLVMIsAInstruction(v))
		return 0;
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMAdd:
		return '+';
	case LLVMSub:
		return '-';
	case LLVMMul:
		return '*';
	case LLVMXor:
		return '^';
	case LLVMSExt:
		return 's';
	case LLVMZExt:
		return 'z';
	case LLVMTrunc:
		return 't';
	default:
		return 0;
	}
}

/* Walk v's computation: collect its leaves (out == NULL), or write its
 * postfix text with the leaves' indices in vals (out != NULL). A value the
 * group already emits is a leaf even if it is computed: it costs nothing. */
static int formula_walk(LLVMValueRef v, unsigned depth, struct formula *f, struct buf *out,
			LLVMValueRef *vals, unsigned nvals)
{
	unsigned w = int_width(v);
	char op = depth < FORMULA_DEPTH ? formula_op(v) : 0;
	int64_t c;

	unsigned k;

	if (!w || w > 64)
		return -EINVAL;
	for (k = 0; k < nvals && vals[k] != v; k++)
		;
	if (k < nvals || prev_index(f->prev, v) != -1u)
		op = 0;
	if (LLVMIsAConstantInt(v)) {
		c = LLVMConstIntGetSExtValue(v);
		return out ? buf_printf(out, "c%" PRId64 ",", c) : 0;
	}
	if (!op) {
		if (!out) {
			for (k = 0; k < f->nleaf && f->leaf[k] != v; k++)
				;
			if (k == f->nleaf) {
				if (f->nleaf == FORMULA_LEAVES)
					return -E2BIG;
				f->leaf[f->nleaf++] = v;
			}
			return 0;
		}
		for (k = 0; k < nvals && vals[k] != v; k++)
			;
		if (k < nvals)
			return buf_printf(out, "a%u,", k);
		k = prev_index(f->prev, v);
		return k != -1u ? buf_printf(out, "p%u,", k) : -EINVAL;
	}
	{
		LLVMValueRef a = LLVMGetOperand(v, 0);
		int rc = formula_walk(a, depth + 1, f, out, vals, nvals);

		if (rc)
			return rc;
		if (op == 's' || op == 'z' || op == 't') {
			if (!int_width(a))
				return -EINVAL;
			if (!out)
				return 0;
			return buf_printf(out, "%c%u,", op, op == 't' ? w : int_width(a));
		}
		rc = formula_walk(LLVMGetOperand(v, 1), depth + 1, f, out, vals, nvals);
		if (rc)
			return rc;
		if (!out) {
			f->nops++;
			return 0;
		}
		return buf_printf(out, "%c%u,", op, w);
	}
}

static int is_marker_call(LLVMValueRef v);

/* Whether the program uses v only to trace it. */
static int only_traced(LLVMValueRef v)
{
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
		if (!is_marker_call(LLVMGetUser(u)))
			return 0;
	return 1;
}

/* Put v into the table as a formula if that emits no more values than v
 * itself would (returns 1), else nothing (0). */
static int try_formula(struct opt *o, LLVMValueRef v, LLVMValueRef *vals, unsigned *nvals,
		       struct buf *ev)
{
	struct formula f = {.prev = o->no_prev ? NULL : &o->prev};
	unsigned fresh = 0;
	int rc;

	if (formula_walk(v, 0, &f, NULL, vals, *nvals) || !f.nops)
		return 0;
	for (unsigned i = 0; i < f.nleaf; i++) {
		unsigned k;

		for (k = 0; k < *nvals && vals[k] != f.leaf[i]; k++)
			;
		fresh += k == *nvals && prev_index(f.prev, f.leaf[i]) == -1u;
	}
	if (fresh > 1 || (fresh == 1 && !only_traced(v)) || *nvals + fresh > CC_MAX_EMIT)
		return 0;
	for (unsigned i = 0; i < f.nleaf; i++) {
		unsigned k;

		for (k = 0; k < *nvals && vals[k] != f.leaf[i]; k++)
			;
		if (k == *nvals && prev_index(f.prev, f.leaf[i]) == -1u)
			vals[(*nvals)++] = f.leaf[i];
	}
	rc = buf_printf(ev, " f");
	if (!rc)
		rc = formula_walk(v, 0, &f, ev, vals, *nvals);
	if (rc)
		return rc;
	ev->p[--ev->len] = '\0'; /* the last comma */
	o->formulas++;
	return 1;
}

static int is_idempotent(const struct opt *o, uint32_t id)
{
	for (unsigned i = 0; i < o->nidem; i++)
		if (o->idem[i] == id)
			return 1;
	return 0;
}

/* After a record: it is the previous one for the next group of the block. */
static void set_prev(struct opt *o, const LLVMValueRef *vals, unsigned n, const char *ref,
		     LLVMValueRef call)
{
	o->prev.call = call;
	memcpy(o->prev.vals, vals, n * sizeof(*vals));
	o->prev.n = n;
	o->prev.valid = 1;
	snprintf(o->prev.ref, sizeof(o->prev.ref), "%s", ref);
}

/*
 * Cycle estimates (table "d<cycles>"): how long before its merged call an
 * original trace call would have run. Static and rough: the instructions
 * between the call's place and the merged call's place in the block (the
 * other trace calls and debug intrinsics, which generate no code of their
 * own in the rewritten program, left out) times CC_CYCLES_PER_INSN. The
 * decoder subtracts it (as TSC ticks, i.e. assuming the TSC counts at the
 * core's clock) from the merged record's time. Calls moved in from a
 * predecessor block count from the successor's start only.
 */
static unsigned cycles_before(LLVMValueRef from, LLVMValueRef to)
{
	unsigned insns = 0;

	if (from == to)
		return 0;
	for (LLVMValueRef i = LLVMGetNextInstruction(from); i && i != to;
	     i = LLVMGetNextInstruction(i)) {
		const char *name = LLVMIsACallInst(i) ? callee_name(i) : NULL;

		if (is_marker_call(i) || (name && !strncmp(name, "llvm.dbg.", 9)))
			continue;
		insns++;
	}
	return insns * CC_CYCLES_PER_INSN;
}

/*
 * Untimed records (table "t<c>"): a merged record that follows the previous
 * record of its block through straight-line code reads no TSC; the decoder
 * gives it the previous record's time plus the instructions between the two
 * (cycles_before). Between them only instructions that are not calls, the
 * trace markers and barriers, and intrinsics that are arithmetic or no code
 * at all: no call that may take long or not return (a memcpy of unknown
 * size, a function call), and no loop (it is one block). A barrier keeps the
 * order of the events, not their times, so it does not need a TSC read.
 */
static int quiet_call(LLVMValueRef call)
{
	static const char *const ok[] = {
		"llvm.dbg.",	"llvm.lifetime.", "llvm.assume",
		"llvm.experimental.noalias.scope.decl",
		"llvm.expect",	"llvm.smax.",	  "llvm.smin.",
		"llvm.umax.",	"llvm.umin.",	  "llvm.abs.",
		"llvm.ctpop.",	"llvm.ctlz.",	  "llvm.cttz.",
		"llvm.bswap.",	"llvm.fshl.",	  "llvm.fshr.",
		"llvm.sadd.with.overflow.",	  "llvm.uadd.with.overflow.",
		"llvm.ssub.with.overflow.",	  "llvm.usub.with.overflow.",
		"llvm.smul.with.overflow.",	  "llvm.umul.with.overflow.",
	};
	const char *name = callee_name(call);

	if (!name)
		return 0;
	if (marker_arity(name) >= 0 || !strcmp(name, "spool__barrier"))
		return 1;
	for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
		if (!strncmp(name, ok[k], strlen(ok[k])))
			return 1;
	return 0;
}

/* Whether the record at `to` may be untimed: the block's previous record
 * (o->prev, written at from) is before it in the same block with only quiet
 * code between. */
static int may_be_untimed(const struct opt *o, LLVMValueRef to)
{
	LLVMValueRef from = o->prev.call;

	if (o->no_untimed || !o->emit_nt_fn || LLVMIsDeclaration(o->emit_nt_fn) ||
	    !o->prev.valid || !from ||
	    LLVMGetInstructionParent(from) != LLVMGetInstructionParent(to))
		return 0;
	for (LLVMValueRef i = LLVMGetNextInstruction(from); i; i = LLVMGetNextInstruction(i)) {
		if (i == to)
			return 1;
		if ((LLVMIsACallInst(i) && !quiet_call(i)) || LLVMIsAInvokeInst(i))
			return 0;
	}
	return 0; /* to is not after from */
}

/*
 * Loop depth of every block of fn, in block order (the --max-codes estimate
 * of how often a block runs). A back edge is an edge to a block on the DFS
 * stack; its loop is the header and every block that reaches the edge's
 * source backwards without passing the header. A block's depth is the
 * number of such loops (per header) that hold it. Irreducible flow is
 * counted as well as this finds it: it is an estimate.
 */
static unsigned *loop_depths(LLVMValueRef fn)
{
	unsigned nb = LLVMCountBasicBlocks(fn), top = 0, nstk;
	LLVMBasicBlockRef *bbs = calloc(nb + 1, sizeof(*bbs));
	unsigned *depth = calloc(nb + 1, sizeof(*depth)), *state = calloc(nb + 1, sizeof(*state));
	unsigned *stk = calloc(nb + 1, sizeof(*stk)), *succ_i = calloc(nb + 1, sizeof(*succ_i));
	unsigned char *hdr = calloc((size_t)nb * nb + 1, 1); /* hdr[h * nb + b]: b in h's loop */
	unsigned *work = calloc(nb + 1, sizeof(*work));
	int ok = bbs && depth && state && stk && succ_i && hdr && work;

	if (!ok)
		goto out;
	LLVMGetBasicBlocks(fn, bbs);
	/* Index of a block: linear search is fine for the sizes we see. */
#define BB_INDEX(x)                                                                          \
	({                                                                                   \
		unsigned _k = 0;                                                             \
		while (_k < nb && bbs[_k] != (x))                                            \
			_k++;                                                                \
		_k;                                                                          \
	})
	if (nb) {
		stk[top++] = 0;
		state[0] = 1; /* on the stack */
	}
	while (top) {
		unsigned u = stk[top - 1];
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[u]);
		unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;

		if (succ_i[u] == ns) {
			state[u] = 2; /* done */
			top--;
			continue;
		}
		{
			LLVMBasicBlockRef sb = LLVMGetSuccessor(t, succ_i[u]++);
			unsigned v = BB_INDEX(sb);

			if (v >= nb)
				continue;
			if (state[v] == 1) {
				/* Back edge u -> v: mark the loop of header v. */
				hdr[(size_t)v * nb + v] = 1;
				nstk = 0;
				if (!hdr[(size_t)v * nb + u]) {
					hdr[(size_t)v * nb + u] = 1;
					work[nstk++] = u;
				}
				while (nstk) {
					unsigned w = work[--nstk];

					/* Predecessors of w: every block with an edge to it. */
					for (unsigned q = 0; q < nb; q++) {
						LLVMValueRef qt;
						unsigned qn;

						qt = LLVMGetBasicBlockTerminator(bbs[q]);
						qn = qt ? LLVMGetNumSuccessors(qt) : 0;

						for (unsigned e = 0; e < qn; e++)
							if (LLVMGetSuccessor(qt, e) == bbs[w] &&
							    !hdr[(size_t)v * nb + q]) {
								hdr[(size_t)v * nb + q] = 1;
								work[nstk++] = q;
							}
					}
				}
			} else if (!state[v]) {
				state[v] = 1;
				stk[top++] = v;
			}
		}
	}
#undef BB_INDEX
	for (unsigned h = 0; h < nb; h++)
		if (hdr[(size_t)h * nb + h])
			for (unsigned b = 0; b < nb; b++)
				depth[b] += hdr[(size_t)h * nb + b];
out:
	free(bbs);
	free(state);
	free(stk);
	free(succ_i);
	free(hdr);
	free(work);
	if (!ok) {
		free(depth);
		return NULL;
	}
	return depth;
}

static int prof_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct prof_ent *)a)->id, y = ((const struct prof_ent *)b)->id;

	return x < y ? -1 : x > y;
}

static struct prof_ent *prof_find(const struct opt *o, uint32_t id)
{
	struct prof_ent key = {.id = id};

	return o->prof ? bsearch(&key, o->prof, o->nprof, sizeof(key), prof_cmp) : NULL;
}

/*
 * How often a group ran in the profiled run, estimated: a group runs at
 * most as often as its least frequent event, and an event traced by several
 * calls of the unit is counted for each as an equal share (the profile knows
 * ids, not call sites). Ids the profile does not have did not run: 0.
 */
static uint64_t prof_freq(const struct opt *o, const struct site *g, unsigned n)
{
	uint64_t freq = UINT64_MAX;

	for (unsigned i = 0; i < n; i++) {
		const struct prof_ent *e = prof_find(o, g[i].id);
		uint64_t f = e && e->sites ? (e->count + e->sites - 1) / e->sites : 0;

		if (f < freq)
			freq = f;
	}
	return n ? freq : 0;
}

/* Read a --profile file: "ID COUNT" per line, '#' lines ignored; counts of
 * an id given twice add up. */
static int load_profile(struct opt *o, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned lineno = 0;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "spool-ccopt: cannot open profile %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long id, count;
		struct prof_ent *p;
		char c;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%llu %llu %c", &id, &count, &c) != 2 || id >= CC_ID_BASE) {
			fprintf(stderr,
				"spool-ccopt: %s:%u: not a profile line (\"EVENT_ID COUNT\", "
				"spool decode --counts)\n",
				path, lineno);
			rc = -EINVAL;
			break;
		}
		p = realloc(o->prof, (o->nprof + 1) * sizeof(*p));
		if (!p) {
			rc = -ENOMEM;
			break;
		}
		o->prof = p;
		o->prof[o->nprof++] = (struct prof_ent){.id = (uint32_t)id, .count = count};
	}
	fclose(f);
	if (rc)
		return rc;
	if (!o->prof) {
		/* An empty profile: nothing ran; every estimate is 0. */
		o->prof = calloc(1, sizeof(*o->prof));
		return o->prof ? 0 : -ENOMEM;
	}
	qsort(o->prof, o->nprof, sizeof(*o->prof), prof_cmp);
	{
		size_t k = 0;

		for (size_t i = 0; i < o->nprof; i++) {
			if (k && o->prof[k - 1].id == o->prof[i].id)
				o->prof[k - 1].count += o->prof[i].count;
			else
				o->prof[k++] = o->prof[i];
		}
		o->nprof = k;
	}
	return 0;
}

/* The marker calls of each profiled id in the unit (prof_freq's shares). */
static void prof_count_sites(struct opt *o)
{
	for (size_t k = 0; k < o->nprof; k++)
		o->prof[k].sites = 0;
	for (LLVMValueRef fn = LLVMGetFirstFunction(o->mod); fn; fn = LLVMGetNextFunction(fn))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
		     bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
			     i = LLVMGetNextInstruction(i)) {
				int64_t ctl;
				struct prof_ent *e;

				if (!is_marker_call(i) || !is_const(LLVMGetOperand(i, 0), &ctl))
					continue;
				e = prof_find(o, (uint32_t)ctl);
				if (e)
					e->sites++;
			}
}

/*
 * Table sharing: the merged event written before whose first lines are the
 * longest prefix of this one's (text; j's lines as expanded), so the table
 * says "x<j>,<n>" and writes only the lines after them. Equal lines mean
 * equal events: ids, arguments (a<k> numbers values in the order the group
 * first emits them, so a common prefix of calls numbers alike), repeats and
 * cycle offsets (counted from the group's first call). Returns where this
 * group's own lines start in text.
 */
static const char *shared_prefix(const struct opt *o, const char *text, unsigned *pj,
				 unsigned *pn)
{
	const char *best = text;

	*pn = 0;
	for (unsigned j = 0; j < o->nmerged; j++) {
		const char *a = text, *b = o->full[j];
		unsigned lines = 0;

		if (!b)
			continue;
		for (;;) {
			const char *na = strchr(a, '\n'), *nb = strchr(b, '\n');

			if (!na || !nb || na - a != nb - b || memcmp(a, b, (size_t)(na - a)))
				break;
			a = na + 1;
			b = nb + 1;
			lines++;
		}
		if (lines > *pn) {
			*pn = lines;
			*pj = j;
			best = a;
		}
	}
	return best;
}

/* Rewrite one group (all in one basic block, in order). */
static int flush_group(struct opt *o, struct site *g, unsigned n)
{
	LLVMValueRef vals[CC_MAX_EMIT];
	unsigned nvals = 0, nconst = 0, nprev = 0, nlines = 0, reps = 1;
	struct buf ev = {0}, line = {0}, last = {0};
	char ref[24];
	unsigned last_d = 0, ord, gap = 0;
	int rc = 0, nt = 0;

	if (!n)
		return 0;
	o->groups++;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < g[i].nargs; j++) {
			LLVMValueRef v = LLVMGetOperand(g[i].call, j + 1);
			int64_t c;

			nconst += is_const(v, &c);
			nprev += !o->no_prev && prev_index(&o->prev, v) != -1u;
		}
	ord = o->ngroup++;
	if (!(n == 1 && !nconst && !nprev) && o->collect) {
		/* --max-codes' first pass: score it, rewrite it as if chosen. */
		struct group_score *p = realloc(o->scores, (o->nscores + 1) * sizeof(*p));
		uint64_t freq = 1;

		if (!p)
			return -ENOMEM;
		o->scores = p;
		if (o->prof)
			freq = prof_freq(o, g, n);
		else
			for (unsigned k = 0; k < o->cur_depth && k < 6; k++)
				freq *= LOOP_WEIGHT;
		p[o->nscores].ord = ord;
		p[o->nscores++].score = (4 * (uint64_t)(n - 1) + nconst + nprev) * freq;
	}
	/* A lone call that saves nothing is emitted as written, unless it may
	 * be untimed: that needs a table entry (t<c>), and saves an rdtsc. */
	if ((n == 1 && !nconst && !nprev && !may_be_untimed(o, g[0].call)) ||
	    o->nmerged >= CC_MAX_MERGED ||
	    (o->allowed && (ord >= o->nallowed || !o->allowed[ord]))) {
		/* Emitted as written: nothing to save, or no merged id left. */
		for (unsigned i = 0; i < n; i++) {
			for (unsigned j = 0; j < g[i].nargs; j++)
				vals[j] = LLVMGetOperand(g[i].call, j + 1);
			LLVMValueRef call = build_emit(o, g[i].call,
						       LLVMConstInt(o->i32, g[i].id, 0), vals,
						       g[i].nargs, 0);

			LLVMInstructionEraseFromParent(g[i].call);
			o->singles++;
			snprintf(ref, sizeof(ref), "u%" PRIu32, g[i].id);
			set_prev(o, vals, g[i].nargs, ref, call);
		}
		return 0;
	}
	/* One "e" line per original event; an idempotent event equal to the
	 * one before it (same id, same arguments: the same text) only counts
	 * up that line's repeat. */
	for (unsigned i = 0; !rc && i <= n; i++) {
		if (i < n) {
			line.len = 0;
			rc = buf_printf(&line, "e %" PRIu32 " %u", g[i].id, g[i].nargs);
		}
		for (unsigned j = 0; i < n && !rc && j < g[i].nargs; j++) {
			LLVMValueRef v = LLVMGetOperand(g[i].call, j + 1);
			unsigned k, pk;
			int64_t c;

			if (is_const(v, &c)) {
				rc = buf_printf(&line, " c%" PRId64, c);
				o->dropped_consts++;
				continue;
			}
			for (k = 0; k < nvals && vals[k] != v; k++)
				;
			pk = k == nvals && !o->no_prev ? prev_index(&o->prev, v) : -1u;
			if (pk != -1u) {
				rc = buf_printf(&line, " p%u", pk);
				o->prev_reused++;
				continue;
			}
			if (k == nvals && !o->no_formulas) {
				int frc = try_formula(o, v, vals, &nvals, &line);

				if (frc < 0) {
					rc = frc;
					break;
				}
				if (frc)
					continue;
			}
			if (k == nvals)
				vals[nvals++] = v;
			else
				o->dropped_repeats++;
			rc = buf_printf(&line, " a%u", k);
		}
		if (rc)
			break;
		if (i < n && i && is_idempotent(o, g[i].id) && g[i].id == g[i - 1].id &&
		    last.len == line.len && !memcmp(last.p, line.p, line.len)) {
			reps++;
			o->collapsed++;
			continue;
		}
		if (i) {
			/* The line before is complete: write it. */
			rc = buf_printf(&ev, "%.*s", (int)last.len, last.p);
			if (!rc && reps > 1)
				rc = buf_printf(&ev, " r%u", reps);
			if (!rc && last_d)
				rc = buf_printf(&ev, " o%u", last_d);
			if (!rc)
				rc = buf_printf(&ev, "\n");
			nlines++;
			reps = 1;
		}
		if (i < n && !rc) {
			struct buf t = last;

			last = line;
			line = t;
			/* Cycles after the group's first call: a prefix of
			 * equal calls has equal lines whatever follows it
			 * (table sharing); the span, on the m line, gives
			 * the cycles before the merged call. */
			last_d = o->no_cycles ? 0 : cycles_before(g[0].call, g[i].call);
		}
	}
	if (!rc) {
		int uses_prev = strstr(ev.p, " p") || strstr(ev.p, ",p") || strstr(ev.p, " fp");
		unsigned span = o->no_cycles ? 0 : cycles_before(g[0].call, g[n - 1].call);
		unsigned pj = 0, pn = 0;

		nt = may_be_untimed(o, g[n - 1].call);
		if (nt)
			gap = o->no_cycles ? 0 : cycles_before(o->prev.call, g[n - 1].call);
		const char *own = ev.p;

		if (!o->no_share)
			own = shared_prefix(o, ev.p, &pj, &pn);
		rc = buf_printf(&o->table, "m %u %u %u%s%s", o->nmerged, nvals, nlines - pn,
				uses_prev ? " " : "", uses_prev ? o->prev.ref : "");
		if (!rc && span)
			rc = buf_printf(&o->table, " s%u", span);
		if (!rc && pn)
			rc = buf_printf(&o->table, " x%u,%u", pj, pn);
		if (!rc && nt)
			rc = buf_printf(&o->table, " t%u", gap);
		if (!rc)
			rc = buf_printf(&o->table, "\n%s", own);
		if (!rc) {
			/* Kept whole: later groups may share its lines. */
			o->full[o->nmerged] = ev.p;
			ev.p = NULL;
		}
	}
	free(ev.p);
	free(line.p);
	free(last.p);
	if (rc)
		return rc;
	{
		LLVMValueRef call = build_emit(o, g[n - 1].call, LLVMConstInt(o->i32, 0, 0), vals,
					       nvals, nt);

		o->untimed += nt;
		o->merged[o->nmerged] = call;
		snprintf(ref, sizeof(ref), "m%u", o->nmerged++);
		set_prev(o, vals, nvals, ref, call);
		for (unsigned i = 0; i < n; i++)
			LLVMInstructionEraseFromParent(g[i].call);
	}
	return 0;
}

static int remember_erase(struct opt *o, LLVMValueRef v)
{
	if (o->nerase == o->cap_erase) {
		size_t cap = o->cap_erase ? o->cap_erase * 2 : 64;
		LLVMValueRef *p = realloc(o->erase, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		o->erase = p;
		o->cap_erase = cap;
	}
	o->erase[o->nerase++] = v;
	return 0;
}

/* Whether a call may write a trace record of its own: anything but our
 * markers and LLVM's intrinsics (which never call back into the program). */
static int may_trace(LLVMValueRef call)
{
	const char *name = callee_name(call);

	return !name || strncmp(name, "llvm.", 5);
}

static int do_block(struct opt *o, LLVMValueRef fn, LLVMBasicBlockRef bb, const unsigned *depth)
{
	struct site g[CC_MAX_EMIT];
	unsigned n = 0, nvals = 0, deadline = -1u;
	LLVMValueRef i, next;
	int rc = 0;

	/* A block's first group follows whatever ran before the block. */
	o->prev.valid = 0;
	{
		unsigned k = 0;

		for (LLVMBasicBlockRef x = LLVMGetFirstBasicBlock(fn); x && x != bb;
		     x = LLVMGetNextBasicBlock(x))
			k++;
		o->cur_depth = depth ? depth[k] : 0;
	}
	for (i = LLVMGetFirstInstruction(bb); i; i = next) {
		const char *name;
		int arity;

		/* flush_group erases the calls before i, never i or later ones. */
		next = LLVMGetNextInstruction(i);
		if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
			continue;
		name = callee_name(i);
		arity = name ? marker_arity(name) : -1;
		if (arity >= 0) {
			LLVMValueRef idv = LLVMGetOperand(i, 0);
			int64_t ctl;
			uint32_t id;

			if (!is_const(idv, &ctl) || (uint32_t)ctl >= CC_ID_BASE) {
				size_t len;

				fprintf(stderr,
					"spool-ccopt: %s: in %s: SPOOL_TRACE with an event id that "
					"is not a constant below 0x80000000\n",
					o->name, LLVMGetValueName2(fn, &len));
				return -EINVAL;
			}
			id = (uint32_t)ctl;
			o->sites++;
			/* A group never holds a call further than its move
			 * limit from the group's end (where it is written). */
			if (n == CC_MAX_EMIT || nvals + (unsigned)arity > CC_MAX_EMIT ||
			    n > deadline) {
				rc = flush_group(o, g, n);
				n = nvals = 0;
				deadline = -1u;
				if (rc)
					return rc;
			}
			g[n].call = i;
			g[n].id = id;
			g[n].nargs = (unsigned)arity;
			g[n].lim = (unsigned)((uint64_t)ctl >> 32);
			if (g[n].lim) {
				o->limited++;
				if (n + g[n].lim - 1 < deadline)
					deadline = n + g[n].lim - 1;
			}
			n++;
			nvals += (unsigned)arity;
			continue;
		}
		if (name && !strcmp(name, "spool__barrier")) {
			o->barriers++;
			rc = remember_erase(o, i);
		} else if (!may_not_return(o, i)) {
			if (may_trace(i))
				o->prev.valid = 0;
			continue;
		}
		if (!rc)
			rc = flush_group(o, g, n);
		n = nvals = 0;
		deadline = -1u;
		if (rc)
			return rc;
		if (may_trace(i) && strcmp(name ? name : "", "spool__barrier"))
			o->prev.valid = 0;
	}
	return flush_group(o, g, n);
}

/* SPOOL_TRACE_IDEMPOTENT's variables: their ids, then they go. And the
 * calls SPOOL_TRACE_OFF_<ID> left (spool__off): counted, then they go. */
static int take_marks(struct opt *o)
{
	LLVMValueRef gv, nextg;

	for (gv = LLVMGetFirstGlobal(o->mod); gv; gv = nextg) {
		size_t len;
		const char *name = LLVMGetValueName2(gv, &len);
		LLVMValueRef init;

		nextg = LLVMGetNextGlobal(gv);
		if (strncmp(name, "spool__idem_", 12))
			continue;
		init = LLVMGetInitializer(gv);
		if (!init || !LLVMIsAConstantInt(init) || o->nidem == MAX_IDEM) {
			fprintf(stderr, "spool-ccopt: %s: SPOOL_TRACE_IDEMPOTENT: %s\n", o->name,
				init ? "more than 256 events" : "not a constant id");
			return -EINVAL;
		}
		o->idem[o->nidem++] = (uint32_t)LLVMConstIntGetZExtValue(init);
		if (LLVMGetFirstUse(gv))
			continue; /* the program uses it: leave it */
		LLVMDeleteGlobal(gv);
	}
	for (LLVMValueRef fn = LLVMGetFirstFunction(o->mod); fn; fn = LLVMGetNextFunction(fn))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
		     bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
				const char *name = LLVMIsACallInst(i) ? callee_name(i) : NULL;

				next = LLVMGetNextInstruction(i);
				if (name && !strcmp(name, "spool__off")) {
					LLVMInstructionEraseFromParent(i);
					o->off++;
				}
			}
	return 0;
}

/* The constructor that announces the table's hash, and the table section. */
static int finish_module(struct opt *o, uint64_t hash, const char *header)
{
	uint32_t key = CC_KEY(hash);
	char name[64];
	LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(o->ctx), NULL, 0, 0);
	LLVMValueRef fn, hv;
	LLVMBasicBlockRef bb;
	struct buf as = {0};
	const char *p;
	int rc;

	for (unsigned i = 0; i < o->nmerged; i++)
		LLVMSetOperand(o->merged[i], 0, LLVMConstInt(o->i32, CC_ID(key, i), 0));

	snprintf(name, sizeof(name), "spool__cc_hello_%016" PRIx64, hash);
	fn = LLVMAddFunction(o->mod, name, fty);
	LLVMSetLinkage(fn, LLVMWeakAnyLinkage);
	LLVMSetVisibility(fn, LLVMHiddenVisibility);
	bb = LLVMAppendBasicBlockInContext(o->ctx, fn, "entry");
	LLVMPositionBuilderAtEnd(o->b, bb);
	hv = LLVMBuildRetVoid(o->b);
	{
		LLVMValueRef v = LLVMConstInt(o->i64, hash, 0);

		build_emit(o, hv, LLVMConstInt(o->i32, CC_ID(key, CC_HELLO_INDEX), 0), &v, 1, 0);
	}

	rc = buf_printf(&as,
			".pushsection .init_array,\"aw\",@init_array\n.p2align 3\n.quad %s\n"
			".popsection\n.pushsection %s,\"\",@progbits\n.ascii \"%s\\n\"\n",
			name, CC_TABLE_SECTION, header);
	/* The table is digits, letters and spaces: only the newlines need escaping. */
	for (p = o->table.p; !rc && p && *p;) {
		const char *nl = strchr(p, '\n');

		rc = buf_printf(&as, ".ascii \"%.*s\\n\"\n", (int)(nl - p), p);
		p = nl + 1;
	}
	if (!rc)
		rc = buf_printf(&as, ".popsection\n");
	if (!rc)
		LLVMAppendModuleInlineAsm(o->mod, as.p, as.len);
	free(as.p);
	return rc;
}

/* The whole rewrite of o->mod (o->allowed, when set, says which groups may
 * become merged events). */
static int rewrite_module(struct opt *o)
{
	unsigned *depth = NULL;
	int rc = 0;

	o->willreturn = LLVMGetEnumAttributeKindForName("willreturn", 10);
	o->emit_fn = LLVMGetNamedFunction(o->mod, "spool__emit");
	o->emit_nt_fn = LLVMGetNamedFunction(o->mod, "spool__emit_nt");
	if (o->emit_nt_fn)
		o->emit_nt_ty = LLVMGlobalGetValueType(o->emit_nt_fn);
	if (take_marks(o))
		return -EINVAL;
	if (o->prof)
		prof_count_sites(o);
	rc = move_rounds(o);
	if (rc)
		return rc;
	for (LLVMValueRef fn = LLVMGetFirstFunction(o->mod); fn; fn = LLVMGetNextFunction(fn)) {
		if (!is_body(o, fn))
			continue;
		free(depth);
		depth = loop_depths(fn);
		if (!depth) {
			rc = -ENOMEM;
			goto out;
		}
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
		     bb = LLVMGetNextBasicBlock(bb)) {
			/* Only blocks with marker calls need the helper. */
			if (!o->emit_fn || LLVMIsDeclaration(o->emit_fn)) {
				int any = 0;

				for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !any;
				     i = LLVMGetNextInstruction(i)) {
					const char *name = LLVMIsACallInst(i) ? callee_name(i) : NULL;

					any = name && marker_arity(name) >= 0;
				}
				if (!any)
					continue;
				fprintf(stderr,
					"spool-ccopt: %s: trace calls but no spool__emit: compile "
					"with spool/trace.h and -DSPOOL_CC (spool cc does)\n",
					o->name);
				rc = -EINVAL;
				goto out;
			}
			o->emit_ty = LLVMGlobalGetValueType(o->emit_fn);
			rc = do_block(o, fn, bb, depth);
			if (rc)
				goto out;
		}
	}
out:
	free(depth);
	return rc;
}

/*
 * --max-codes N: at most N merged events. A first rewrite of a copy of the
 * module scores every group that would become one: the ring words it saves
 * per execution (4 per trace call saved, a record header being 32 bytes,
 * plus one per argument it no longer emits) times an execution frequency
 * estimate, LOOP_WEIGHT to the power of the block's loop depth. The N best
 * (ties: the earlier group) are merged in the real rewrite; the others stay
 * trace calls as written. Groups are numbered in walk order, which the
 * choice does not change (grouping does not depend on what is merged).
 */
static int score_cmp(const void *a, const void *b)
{
	const struct group_score *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int choose_merges(struct opt *o)
{
	struct opt c = {0};
	int rc;

	c.mod = LLVMCloneModule(o->mod);
	c.ctx = o->ctx;
	c.b = o->b;
	c.i32 = o->i32;
	c.i64 = o->i64;
	c.name = o->name;
	c.collect = 1;
	c.no_formulas = o->no_formulas;
	c.no_sink = o->no_sink;
	c.no_prev = o->no_prev;
	c.no_cycles = 1;
	c.no_untimed = 1;
	c.round_gain = o->round_gain;
	c.prof = o->prof;
	c.nprof = o->nprof;
	rc = c.mod ? rewrite_module(&c) : -ENOMEM;
	free(c.table.p);
	free(c.erase);
	for (unsigned i = 0; i < c.nmerged; i++)
		free(c.full[i]);
	if (c.mod)
		LLVMDisposeModule(c.mod);
	if (rc) {
		free(c.scores);
		return rc;
	}
	o->allowed = calloc(c.ngroup + 1, 1);
	if (!o->allowed) {
		free(c.scores);
		return -ENOMEM;
	}
	o->nallowed = c.ngroup;
	if (c.nscores)
		qsort(c.scores, c.nscores, sizeof(*c.scores), score_cmp);
	for (size_t k = 0; k < c.nscores && k < (size_t)o->max_codes; k++)
		o->allowed[c.scores[k].ord] = 1;
	if (c.nscores > (size_t)o->max_codes)
		o->over_limit = (unsigned)(c.nscores - (size_t)o->max_codes);
	free(c.scores);
	return 0;
}

static void diag_handler(LLVMDiagnosticInfoRef di, void *arg)
{
	char *msg = LLVMGetDiagInfoDescription(di);

	fprintf(stderr, "spool-ccopt: %s: %s\n", (const char *)arg, msg);
	LLVMDisposeMessage(msg);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: spool-ccopt [--table FILE] [--explain] [--name SOURCE] [--no-formulas] "
		   "[--no-sink] [--no-prev] [--no-cycles] [--max-codes N] [--profile FILE] "
		   "[--round-gain PCT] [--no-share] [--no-untimed] [--no-strict-aliasing] IN.bc OUT.bc\n");
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *table_file = NULL, *name = NULL, *profile = NULL;
	struct opt o = {.max_codes = -1, .round_gain = ROUND_GAIN};
	LLVMMemoryBufferRef mb = NULL;
	char *msg = NULL, header[128];
	int rc = 1, explain = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--table") && i + 1 < argc)
			table_file = argv[++i];
		else if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--explain"))
			explain = 1;
		else if (!strcmp(argv[i], "--no-formulas"))
			o.no_formulas = 1;
		else if (!strcmp(argv[i], "--no-sink"))
			o.no_sink = 1;
		else if (!strcmp(argv[i], "--no-prev"))
			o.no_prev = 1;
		else if (!strcmp(argv[i], "--no-cycles"))
			o.no_cycles = 1;
		else if (!strcmp(argv[i], "--no-share"))
			o.no_share = 1;
		else if (!strcmp(argv[i], "--no-untimed"))
			o.no_untimed = 1;
		else if (!strcmp(argv[i], "--no-strict-aliasing"))
			strict_aliasing = 0;
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			profile = argv[++i];
		else if (!strcmp(argv[i], "--round-gain") && i + 1 < argc) {
			char *end;

			o.round_gain = strtod(argv[++i], &end);
			if (*end || end == argv[i] || !(o.round_gain >= 0 && o.round_gain <= 100)) {
				fprintf(stderr,
					"spool-ccopt: --round-gain wants a percentage, 0..100\n");
				return 2;
			}
		}
		else if (!strcmp(argv[i], "--max-codes") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);

			if (*end || end == argv[i] || v < 0 || v > CC_MAX_MERGED) {
				fprintf(stderr, "spool-ccopt: --max-codes wants 0..%u\n",
					CC_MAX_MERGED);
				return 2;
			}
			o.max_codes = (int)v;
		}
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			usage(stderr);
			return 2;
		} else if (!in)
			in = argv[i];
		else if (!out)
			out = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (!in || !out) {
		usage(stderr);
		return 2;
	}
	o.explain = explain;
	if (profile && load_profile(&o, profile))
		return 1;
	/* Messages name the source the user compiles, not spool cc's temporary. */
	o.name = name ? name : in;
	o.ctx = LLVMContextCreate();
	LLVMContextSetDiagnosticHandler(o.ctx, diag_handler, (void *)in);
	if (LLVMCreateMemoryBufferWithContentsOfFile(in, &mb, &msg)) {
		fprintf(stderr, "spool-ccopt: %s: %s\n", in, msg);
		goto out_ctx;
	}
	if (LLVMParseBitcodeInContext2(o.ctx, mb, &o.mod)) {
		fprintf(stderr, "spool-ccopt: %s: not LLVM bitcode spool-ccopt can read\n", in);
		goto out_buf;
	}
	o.b = LLVMCreateBuilderInContext(o.ctx);
	o.i32 = LLVMInt32TypeInContext(o.ctx);
	o.i64 = LLVMInt64TypeInContext(o.ctx);
	/* With a profile the choice matters even without --max-codes: the
	 * unit's CC_MAX_MERGED codes go to the groups that ran most. */
	if (o.prof && o.max_codes < 0)
		o.max_codes = CC_MAX_MERGED;
	if (o.max_codes >= 0 && choose_merges(&o))
		goto out_mod;
	if (rewrite_module(&o))
		goto out_mod;
	for (size_t i = 0; i < o.nerase; i++)
		LLVMInstructionEraseFromParent(o.erase[i]);
	if (o.nmerged) {
		uint64_t hash;

		if (buf_printf(&o.table, "end\n"))
			goto out_mod;
		hash = cc_hash(o.table.p, o.table.len);
		snprintf(header, sizeof(header), "%s %d %016" PRIx64 " %u", CC_TABLE_MAGIC,
			 CC_TABLE_VERSION, hash, o.nmerged);
		if (finish_module(&o, hash, header))
			goto out_mod;
		if (table_file) {
			/* Beside the file, renamed when whole: a failure keeps
			 * the previous table (outfile.c says why). */
			struct outfile of;

			if (outfile_open(&of, table_file, 0666, 0) < 0)
				goto out_mod;
			if (fprintf(of.f, "%s\n%s", header, o.table.p) < 0) {
				outfile_abort(&of);
				fprintf(stderr, "spool-ccopt: cannot write %s\n", table_file);
				goto out_mod;
			}
			if (outfile_commit(&of) < 0)
				goto out_mod;
		}
	}
	if (LLVMVerifyModule(o.mod, LLVMReturnStatusAction, &msg)) {
		fprintf(stderr, "spool-ccopt: %s: rewritten module is invalid (a bug): %s\n", in,
			msg);
		goto out_mod;
	}
	if (LLVMWriteBitcodeToFile(o.mod, out)) {
		fprintf(stderr, "spool-ccopt: cannot write %s\n", out);
		goto out_mod;
	}
	if (explain)
		fprintf(stderr,
			"spool-ccopt: %s: %u trace calls in %u groups: %u merged events, %u "
			"left as they are; %u constant and %u repeated arguments not emitted, "
			"%u computed by the host; %u calls moved into the next block, %u into "
			"the blocks before; "
			"%u loads repeated across trace calls merged; %u barriers; "
			"%u values taken from the previous record; %u idempotent repeats "
			"collapsed; %u calls with a move limit; %u calls switched off; %u "
			"merges over --max-codes left as written (chosen by %s); %u moving "
			"rounds, estimated trace words per run %.0f -> %.0f before merging; "
			"%u merged records untimed (no TSC read)\n",
			o.name, o.sites, o.groups, o.nmerged, o.singles, o.dropped_consts,
			o.dropped_repeats, o.formulas, o.sunk, o.hoisted, o.loads, o.barriers,
			o.prev_reused,
			o.collapsed, o.limited, o.off, o.over_limit,
			o.prof ? "the profile's counts" : "static estimate", o.rounds, o.cost_start,
			o.cost_end, o.untimed);
	rc = 0;
out_mod:
	free(o.table.p);
	free(o.erase);
	free(o.allowed);
	free(o.prof);
	for (unsigned i = 0; i < o.nmerged; i++)
		free(o.full[i]);
	LLVMDisposeBuilder(o.b);
	LLVMDisposeModule(o.mod);
out_buf:
	/* Parsing copied what it needed: the buffer is still ours. */
	LLVMDisposeMemoryBuffer(mb);
out_ctx:
	if (msg)
		LLVMDisposeMessage(msg);
	LLVMContextDispose(o.ctx);
	return rc;
}
