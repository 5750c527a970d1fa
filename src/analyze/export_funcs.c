// SPDX-License-Identifier: MIT
/*
 * export_funcs.c - function activations of a probe trace (spool probe -e
 * func:...) as timeline slices, for both exports: one slice per activation,
 * named by the function, on its thread's function track.
 *
 * callstack.c pairs entries and exits and reports activations strictly LIFO
 * per thread, so a per-thread stack of open slices mirrors its stack and
 * the slices nest by construction: a child begins after and ends before its
 * parent. Activations whose exit was never seen end where callstack.c
 * closes them (a later exit of a caller, or the thread's last probe event);
 * those still open at the end of the trace are marked unfinished.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "callstack.h"
#include "export_int.h"

struct xf_thread {
	struct export_slice *open;
	size_t n, cap;
};

struct export_funcs {
	struct export_model *m;
	struct callstack *cs;
	struct xf_thread *th; /* by stream id (the thread index) */
	size_t nth;
	int finishing;
};

static struct xf_thread *xf_thread(struct export_funcs *x, uint32_t stream)
{
	if (stream >= x->nth) {
		size_t n = (size_t)stream + 16;
		struct xf_thread *nt = realloc(x->th, n * sizeof(*nt));

		if (!nt)
			return NULL;
		memset(nt + x->nth, 0, (n - x->nth) * sizeof(*nt));
		x->th = nt;
		x->nth = n;
	}
	return &x->th[stream];
}

static int xf_enter(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		    const struct callstack_frame *parent, const struct rec_probe *p,
		    const struct trace_event *ev)
{
	struct export_funcs *x = ctx;
	struct xf_thread *t = xf_thread(x, stream);
	const struct callstack_fn *fn = callstack_fn(x->cs, fr->fn);
	const struct export_thread *et;
	const char *mod;
	int ret;

	if (!t)
		return -ENOMEM;
	if ((ret = export_model_thread_ref(x->m, stream, ev->ns, &et)))
		return ret;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 32;
		struct export_slice *no = realloc(t->open, nc * sizeof(*no));

		if (!no)
			return -ENOMEM;
		t->open = no;
		t->cap = nc;
	}
	/* "-" is the main program: not worth an annotation. */
	mod = strrchr(fn->module, '/');
	mod = mod ? mod + 1 : strcmp(fn->module, "-") ? fn->module : "";
	t->open[t->n] = (struct export_slice){
		.thread = et,
		.func = 1,
		.begin_ns = ev->ns,
		.name = fn->name,
		.site = mod,
	};
	return export_model_slice_begin(x->m, &t->open[t->n++]);
}

static int xf_leave(void *ctx, uint32_t stream, const struct callstack_frame *fr,
		    struct callstack_frame *parent, uint64_t now, int seen_exit)
{
	struct export_funcs *x = ctx;
	struct xf_thread *t = stream < x->nth ? &x->th[stream] : NULL;
	struct export_slice *s;

	if (!t || !t->n)
		return 0; /* its entry failed to be announced: nothing open */
	s = &t->open[--t->n];
	s->end_ns = now > s->begin_ns ? now : s->begin_ns;
	s->unfinished = x->finishing;
	return export_model_slice_end(x->m, s);
}

static const struct callstack_ops xf_ops = {
	.enter = xf_enter,
	.leave = xf_leave,
};

int export_funcs_new(struct export_funcs **out, struct export_model *m,
		     const struct trace_reader *r)
{
	struct export_funcs *x = calloc(1, sizeof(*x));
	int ret;

	if (!x)
		return -ENOMEM;
	x->m = m;
	ret = callstack_new(&x->cs, r, &xf_ops, x);
	if (ret) {
		free(x);
		return ret;
	}
	*out = x;
	return 0;
}

int export_funcs_feed(struct export_funcs *x, const struct trace_event *ev)
{
	return callstack_feed(x->cs, ev);
}

int export_funcs_finish(struct export_funcs *x)
{
	x->finishing = 1;
	return callstack_finish(x->cs);
}

void export_funcs_free(struct export_funcs *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nth; i++)
		free(x->th[i].open);
	free(x->th);
	callstack_free(x->cs);
	free(x);
}
