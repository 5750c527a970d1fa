// SPDX-License-Identifier: MIT
/*
 * ccopt.c - spool-ccopt, the trace optimizer of `spool cc` (doc/cc.md): reads
 * LLVM bitcode that clang made from a source including spool/trace.h with
 * SPOOL_CC defined, rewrites the trace calls, writes bitcode back. The only
 * code in spool that links LLVM (the LLVM-C API of LLVM 14).
 *
 *	spool-ccopt [--table FILE] [--explain] [--name SOURCE] IN.bc OUT.bc
 *
 * The calls it rewrites are the marker calls spool__traceN(id, a1..aN). In
 * each basic block, the marker calls not separated by a barrier
 * (spool__barrier) or by a call that may not return form a group: one call
 * of spool__emit, placed at the group's last marker (every traced value
 * dominates it), carries the values that are neither constants nor already
 * emitted, under a merged event id; the table says how to rebuild every
 * original event from them. A lone marker call with no constant argument is
 * emitted as it is. Either way no marker call survives, so the program
 * never links against the markers.
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
};

struct opt {
	LLVMModuleRef mod;
	LLVMContextRef ctx;
	LLVMBuilderRef b;
	LLVMValueRef emit_fn; /* spool__emit */
	LLVMTypeRef emit_ty;
	LLVMTypeRef i32, i64;
	unsigned willreturn;
	struct buf table;		/* body: "m ..." and "e ..." lines */
	LLVMValueRef merged[CC_MAX_MERGED]; /* merged calls, their id set at the end */
	unsigned nmerged;
	/* what --explain prints */
	unsigned sites, groups, singles, dropped_consts, dropped_repeats, barriers;
	int explain;
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

/* Build `spool__emit(id, n, vals)` before `at`; the array lives in the
 * function's entry block so it is one stack slot per group. */
static LLVMValueRef build_emit(struct opt *o, LLVMValueRef at, LLVMValueRef id,
			       LLVMValueRef *vals, unsigned n)
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

			LLVMBuildStore(o->b, vals[i], slot);
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
	return LLVMBuildCall2(o->b, o->emit_ty, o->emit_fn, args, 3, "");
}

static int is_const(LLVMValueRef v, int64_t *c)
{
	if (!LLVMIsAConstantInt(v))
		return 0;
	*c = LLVMConstIntGetSExtValue(v);
	return 1;
}

/* Rewrite one group (all in one basic block, in order). */
static int flush_group(struct opt *o, struct site *g, unsigned n)
{
	LLVMValueRef vals[CC_MAX_EMIT];
	unsigned nvals = 0, nconst = 0;
	int rc;

	if (!n)
		return 0;
	o->groups++;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < g[i].nargs; j++) {
			int64_t c;

			nconst += is_const(LLVMGetOperand(g[i].call, j + 1), &c);
		}
	if ((n == 1 && !nconst) || o->nmerged >= CC_MAX_MERGED) {
		/* Emitted as written: nothing to save, or no merged id left. */
		for (unsigned i = 0; i < n; i++) {
			for (unsigned j = 0; j < g[i].nargs; j++)
				vals[j] = LLVMGetOperand(g[i].call, j + 1);
			build_emit(o, g[i].call, LLVMGetOperand(g[i].call, 0), vals, g[i].nargs);
			LLVMInstructionEraseFromParent(g[i].call);
			o->singles++;
		}
		return 0;
	}
	{
		struct buf ev = {0};
		LLVMValueRef call;

		for (unsigned i = 0; i < n; i++) {
			rc = buf_printf(&ev, "e %" PRIu32 " %u", g[i].id, g[i].nargs);
			for (unsigned j = 0; !rc && j < g[i].nargs; j++) {
				LLVMValueRef v = LLVMGetOperand(g[i].call, j + 1);
				unsigned k;
				int64_t c;

				if (is_const(v, &c)) {
					rc = buf_printf(&ev, " c%" PRId64, c);
					o->dropped_consts++;
					continue;
				}
				for (k = 0; k < nvals && vals[k] != v; k++)
					;
				if (k == nvals)
					vals[nvals++] = v;
				else
					o->dropped_repeats++;
				rc = buf_printf(&ev, " a%u", k);
			}
			if (!rc)
				rc = buf_printf(&ev, "\n");
			if (rc) {
				free(ev.p);
				return rc;
			}
		}
		rc = buf_printf(&o->table, "m %u %u %u\n%s", o->nmerged, nvals, n, ev.p);
		free(ev.p);
		if (rc)
			return rc;
		call = build_emit(o, g[n - 1].call, LLVMConstInt(o->i32, 0, 0), vals, nvals);
		o->merged[o->nmerged++] = call;
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

static int do_block(struct opt *o, LLVMValueRef fn, LLVMBasicBlockRef bb)
{
	struct site g[CC_MAX_EMIT];
	unsigned n = 0, nvals = 0;
	LLVMValueRef i, next;
	int rc = 0;

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
			int64_t id;

			if (!is_const(idv, &id) || id < 0 || (uint64_t)id >= CC_ID_BASE) {
				size_t len;

				fprintf(stderr,
					"spool-ccopt: %s: in %s: SPOOL_TRACE with an event id that "
					"is not a constant below 0x80000000\n",
					o->name, LLVMGetValueName2(fn, &len));
				return -EINVAL;
			}
			o->sites++;
			if (n == CC_MAX_EMIT || nvals + (unsigned)arity > CC_MAX_EMIT) {
				rc = flush_group(o, g, n);
				n = nvals = 0;
				if (rc)
					return rc;
			}
			g[n].call = i;
			g[n].id = (uint32_t)id;
			g[n].nargs = (unsigned)arity;
			n++;
			nvals += (unsigned)arity;
			continue;
		}
		if (name && !strcmp(name, "spool__barrier")) {
			o->barriers++;
			rc = remember_erase(o, i);
		} else if (!may_not_return(o, i)) {
			continue;
		}
		if (!rc)
			rc = flush_group(o, g, n);
		n = nvals = 0;
		if (rc)
			return rc;
	}
	return flush_group(o, g, n);
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

		build_emit(o, hv, LLVMConstInt(o->i32, CC_ID(key, CC_HELLO_INDEX), 0), &v, 1);
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

static void diag_handler(LLVMDiagnosticInfoRef di, void *arg)
{
	char *msg = LLVMGetDiagInfoDescription(di);

	fprintf(stderr, "spool-ccopt: %s: %s\n", (const char *)arg, msg);
	LLVMDisposeMessage(msg);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: spool-ccopt [--table FILE] [--explain] [--name SOURCE] IN.bc OUT.bc\n");
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *table_file = NULL, *name = NULL;
	struct opt o = {0};
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
	o.willreturn = LLVMGetEnumAttributeKindForName("willreturn", 10);
	o.emit_fn = LLVMGetNamedFunction(o.mod, "spool__emit");
	for (LLVMValueRef fn = LLVMGetFirstFunction(o.mod); fn; fn = LLVMGetNextFunction(fn)) {
		if (LLVMIsDeclaration(fn) || fn == o.emit_fn)
			continue;
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
		     bb = LLVMGetNextBasicBlock(bb)) {
			/* Only blocks with marker calls need the helper. */
			if (!o.emit_fn || LLVMIsDeclaration(o.emit_fn)) {
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
					in);
				goto out_mod;
			}
			o.emit_ty = LLVMGlobalGetValueType(o.emit_fn);
			if (do_block(&o, fn, bb))
				goto out_mod;
		}
	}
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
			FILE *f = fopen(table_file, "w");

			if (!f || fprintf(f, "%s\n%s", header, o.table.p) < 0 || fclose(f)) {
				fprintf(stderr, "spool-ccopt: cannot write %s\n", table_file);
				goto out_mod;
			}
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
			"left as they are; %u constant and %u repeated arguments not emitted; "
			"%u barriers\n",
			o.name, o.sites, o.groups, o.nmerged, o.singles, o.dropped_consts,
			o.dropped_repeats, o.barriers);
	rc = 0;
out_mod:
	free(o.table.p);
	free(o.erase);
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
