// SPDX-License-Identifier: MIT
/*
 * probe_expr.c - parser and evaluator of assertion conditions (see
 * probe_expr.h). The tree is an array of nodes; children are indices, so
 * freeing is one free per array.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_expr.h"

enum { N_NUM, N_VAR, N_NOT, N_NEG, N_BIN };
enum { B_OR, B_AND, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_ADD, B_SUB, B_MUL, B_DIV, B_MOD };

struct probe_expr_node {
	int type, op;
	int a, b;
	struct probe_value v;
	size_t var;
};

struct probe_expr {
	struct probe_expr_node *n;
	size_t nn, cap;
	int root;
	char **idents;
	size_t nidents;
};

struct probe_expr_p {
	struct probe_expr *e;
	const char *s, *start;
	char *err;
	size_t errlen;
	int failed;
};

static void px_fail(struct probe_expr_p *p, const char *what)
{
	if (!p->failed)
		snprintf(p->err, p->errlen, "%s at offset %zu ('%.12s')", what,
			 (size_t)(p->s - p->start), *p->s ? p->s : "end");
	p->failed = 1;
}

static int px_node(struct probe_expr_p *p, int type, int op, int a, int b)
{
	struct probe_expr *e = p->e;

	if (p->failed)
		return -1;
	if (e->nn == e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 16;
		struct probe_expr_node *nn = realloc(e->n, nc * sizeof(*nn));

		if (!nn) {
			px_fail(p, "out of memory");
			return -1;
		}
		e->n = nn;
		e->cap = nc;
	}
	memset(&e->n[e->nn], 0, sizeof(e->n[0]));
	e->n[e->nn].type = type;
	e->n[e->nn].op = op;
	e->n[e->nn].a = a;
	e->n[e->nn].b = b;
	return (int)e->nn++;
}

static void px_ws(struct probe_expr_p *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static int px_eat(struct probe_expr_p *p, const char *tok)
{
	size_t n = strlen(tok);

	px_ws(p);
	if (strncmp(p->s, tok, n))
		return 0;
	/* "<" is not the start of "<=", "!" not of "!=" */
	if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') &&
	    p->s[1] == '=')
		return 0;
	if (n == 1 && (tok[0] == '&' || tok[0] == '|'))
		return 0;
	p->s += n;
	return 1;
}

static int px_or(struct probe_expr_p *p);

static int px_primary(struct probe_expr_p *p)
{
	px_ws(p);
	if (px_eat(p, "(")) {
		int r = px_or(p);

		if (!px_eat(p, ")"))
			px_fail(p, "')' expected");
		return r;
	}
	if (isdigit((unsigned char)*p->s) || (*p->s == '.' && isdigit((unsigned char)p->s[1]))) {
		char *end;
		int r;
		const char *q = p->s;
		int is_float = 0;

		while (isalnum((unsigned char)*q) || *q == '.' ||
		       ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E') &&
			!(p->s[0] == '0' && (p->s[1] == 'x' || p->s[1] == 'X'))))
			is_float |= *q == '.' ||
				    ((*q == 'e' || *q == 'E') && !(p->s[0] == '0' && p->s[1] == 'x')),
				q++;
		r = px_node(p, N_NUM, 0, -1, -1);
		if (r < 0)
			return r;
		if (is_float) {
			p->e->n[r].v.is_float = 1;
			p->e->n[r].v.f = strtold(p->s, &end);
		} else {
			p->e->n[r].v.i = (int64_t)strtoull(p->s, &end, 0);
		}
		while (end < q && strchr("uUlLfF", *end))
			end++;
		if (end != q)
			px_fail(p, "bad number");
		p->s = q;
		return r;
	}
	if (isalpha((unsigned char)*p->s) || *p->s == '_') {
		const char *q = p->s;
		size_t len, i;
		int r;

		/* a C++ qualified name is one identifier: ns::counter */
		while (isalnum((unsigned char)*q) || *q == '_' ||
		       (q[0] == ':' && q[1] == ':' && (isalpha((unsigned char)q[2]) || q[2] == '_')))
			q += *q == ':' ? 2 : 1;
		len = (size_t)(q - p->s);
		for (i = 0; i < p->e->nidents; i++)
			if (strlen(p->e->idents[i]) == len && !strncmp(p->e->idents[i], p->s, len))
				break;
		if (i == p->e->nidents) {
			char **ni = realloc(p->e->idents, (i + 1) * sizeof(*ni));

			if (!ni || !(ni[i] = strndup(p->s, len))) {
				if (ni)
					p->e->idents = ni;
				px_fail(p, "out of memory");
				return -1;
			}
			p->e->idents = ni;
			p->e->nidents++;
		}
		r = px_node(p, N_VAR, 0, -1, -1);
		if (r >= 0)
			p->e->n[r].var = i;
		p->s = q;
		return r;
	}
	px_fail(p, "a variable, a number or '(' expected");
	return -1;
}

static int px_unary(struct probe_expr_p *p)
{
	if (px_eat(p, "!"))
		return px_node(p, N_NOT, 0, px_unary(p), -1);
	if (px_eat(p, "-"))
		return px_node(p, N_NEG, 0, px_unary(p), -1);
	if (px_eat(p, "+"))
		return px_unary(p);
	return px_primary(p);
}

/* One precedence level: ops[] tried in order, with their B_ codes. */
static int px_level(struct probe_expr_p *p, int (*next)(struct probe_expr_p *),
		    const char *const *ops, const int *codes, size_t nops)
{
	int l = next(p);

	while (!p->failed) {
		size_t i;

		for (i = 0; i < nops; i++)
			if (px_eat(p, ops[i]))
				break;
		if (i == nops)
			break;
		l = px_node(p, N_BIN, codes[i], l, next(p));
	}
	return l;
}

static int px_mul(struct probe_expr_p *p)
{
	static const char *const o[] = {"*", "/", "%"};
	static const int c[] = {B_MUL, B_DIV, B_MOD};

	return px_level(p, px_unary, o, c, 3);
}

static int px_add(struct probe_expr_p *p)
{
	static const char *const o[] = {"+", "-"};
	static const int c[] = {B_ADD, B_SUB};

	return px_level(p, px_mul, o, c, 2);
}

static int px_rel(struct probe_expr_p *p)
{
	static const char *const o[] = {"<=", ">=", "<", ">"};
	static const int c[] = {B_LE, B_GE, B_LT, B_GT};

	return px_level(p, px_add, o, c, 4);
}

static int px_eq(struct probe_expr_p *p)
{
	static const char *const o[] = {"==", "!="};
	static const int c[] = {B_EQ, B_NE};

	return px_level(p, px_rel, o, c, 2);
}

static int px_and(struct probe_expr_p *p)
{
	static const char *const o[] = {"&&"};
	static const int c[] = {B_AND};

	return px_level(p, px_eq, o, c, 1);
}

static int px_or(struct probe_expr_p *p)
{
	static const char *const o[] = {"||"};
	static const int c[] = {B_OR};

	return px_level(p, px_and, o, c, 1);
}

int probe_expr_parse(const char *text, struct probe_expr **out, char *err, size_t errlen)
{
	struct probe_expr_p p = {.s = text, .start = text, .err = err, .errlen = errlen};

	*out = NULL;
	p.e = calloc(1, sizeof(*p.e));
	if (!p.e)
		return -ENOMEM;
	p.e->root = px_or(&p);
	px_ws(&p);
	if (!p.failed && *p.s)
		px_fail(&p, "unexpected text");
	if (p.failed) {
		probe_expr_free(p.e);
		return -EINVAL;
	}
	*out = p.e;
	return 0;
}

void probe_expr_free(struct probe_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nidents; i++)
		free(e->idents[i]);
	free(e->idents);
	free(e->n);
	free(e);
}

size_t probe_expr_nidents(const struct probe_expr *e)
{
	return e->nidents;
}

const char *probe_expr_ident(const struct probe_expr *e, size_t i)
{
	return i < e->nidents ? e->idents[i] : NULL;
}

int probe_value_true(const struct probe_value *v)
{
	return v->is_float ? v->f != 0 : v->i != 0;
}

static long double px_f(const struct probe_value *v)
{
	return v->is_float ? v->f : (long double)v->i;
}

static int px_eval(const struct probe_expr *e, int k, const struct probe_value *vals,
		   struct probe_value *out)
{
	const struct probe_expr_node *n = &e->n[k];
	struct probe_value a, b;
	int rc;

	memset(out, 0, sizeof(*out));
	switch (n->type) {
	case N_NUM:
		*out = n->v;
		return 0;
	case N_VAR:
		*out = vals[n->var];
		return 0;
	case N_NOT:
		rc = px_eval(e, n->a, vals, &a);
		out->i = !probe_value_true(&a);
		return rc;
	case N_NEG:
		rc = px_eval(e, n->a, vals, &a);
		*out = a;
		if (a.is_float)
			out->f = -a.f;
		else
			out->i = (int64_t)(0 - (uint64_t)a.i);
		return rc;
	default:
		break;
	}
	rc = px_eval(e, n->a, vals, &a);
	if (rc)
		return rc;
	/* && and || short-circuit as in C */
	if (n->op == B_AND || n->op == B_OR) {
		int t = probe_value_true(&a);

		if (n->op == B_AND ? !t : t) {
			out->i = t;
			return 0;
		}
		rc = px_eval(e, n->b, vals, &b);
		out->i = probe_value_true(&b);
		return rc;
	}
	rc = px_eval(e, n->b, vals, &b);
	if (rc)
		return rc;
	if (a.is_float || b.is_float) {
		long double x = px_f(&a), y = px_f(&b);

		switch (n->op) {
		case B_EQ: out->i = x == y; break;
		case B_NE: out->i = x != y; break;
		case B_LT: out->i = x < y; break;
		case B_LE: out->i = x <= y; break;
		case B_GT: out->i = x > y; break;
		case B_GE: out->i = x >= y; break;
		case B_MOD:
			return -EDOM; /* % needs integers, as in C */
		default:
			out->is_float = 1;
			if (n->op == B_DIV && y == 0)
				return -EDOM;
			out->f = n->op == B_ADD ? x + y : n->op == B_SUB ? x - y
			       : n->op == B_MUL ? x * y : x / y;
		}
		return 0;
	}
	switch (n->op) {
	case B_EQ: out->i = a.i == b.i; break;
	case B_NE: out->i = a.i != b.i; break;
	case B_LT: out->i = a.i < b.i; break;
	case B_LE: out->i = a.i <= b.i; break;
	case B_GT: out->i = a.i > b.i; break;
	case B_GE: out->i = a.i >= b.i; break;
	/* wrapping arithmetic: no UB on overflow */
	case B_ADD: out->i = (int64_t)((uint64_t)a.i + (uint64_t)b.i); break;
	case B_SUB: out->i = (int64_t)((uint64_t)a.i - (uint64_t)b.i); break;
	case B_MUL: out->i = (int64_t)((uint64_t)a.i * (uint64_t)b.i); break;
	case B_DIV:
	case B_MOD:
		if (!b.i || (a.i == INT64_MIN && b.i == -1))
			return -EDOM;
		out->i = n->op == B_DIV ? a.i / b.i : a.i % b.i;
		break;
	}
	return 0;
}

int probe_expr_eval(const struct probe_expr *e, const struct probe_value *vals,
		    struct probe_value *out)
{
	return px_eval(e, e->root, vals, out);
}
