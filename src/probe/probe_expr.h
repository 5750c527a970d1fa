// SPDX-License-Identifier: MIT
/*
 * probe_expr.h - the conditions of assertion probes (assert:EXPR@POINT): a
 * small C-like expression on variables and constants, parsed when the spec
 * is given (to know which variables the agent must record) and evaluated
 * by the report on the recorded values (the agent runs no expression).
 *
 * Grammar, C precedence: || && (== !=) (< <= > >=) (+ -) (* / %) then unary
 * ! - + and primaries: identifiers, integer and floating constants, and
 * parentheses. Arithmetic follows C's usual conversions in a simplified
 * form: integers are 64-bit signed, any floating operand makes the
 * operation long double; comparisons and logic give 0 or 1.
 */
#ifndef SPOOL_PROBE_PROBE_EXPR_H
#define SPOOL_PROBE_PROBE_EXPR_H

#include <stddef.h>
#include <stdint.h>

struct probe_expr;

struct probe_value {
	int is_float;
	int64_t i;
	long double f;
};

/* Parse text. Returns 0, or -EINVAL with the reason in err. */
int probe_expr_parse(const char *text, struct probe_expr **out, char *err, size_t errlen);
void probe_expr_free(struct probe_expr *e);
/* The distinct identifiers it uses, in order of first use. */
size_t probe_expr_nidents(const struct probe_expr *e);
const char *probe_expr_ident(const struct probe_expr *e, size_t i);
/* Evaluate with vals[i] the value of identifier i. Returns 0, or -EDOM
 * (division by zero: the hit has no truth value). */
int probe_expr_eval(const struct probe_expr *e, const struct probe_value *vals,
		    struct probe_value *out);
/* Is a value true (non-zero)? */
int probe_value_true(const struct probe_value *v);

#endif
