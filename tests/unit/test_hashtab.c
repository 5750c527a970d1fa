// SPDX-License-Identifier: MIT
/*
 * test_hashtab.c - the analyzers' hash table (src/util/hashtab.c): every key
 * added is found again with its value after the table grew many times,
 * (a, b) keys differing in either part are distinct, a key is added once,
 * a walk sees each entry once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/hashtab.h"

struct ent {
	struct hashtab_head h;
	uint64_t val;
};

#define N 5000u

static void grows_and_finds(void **state)
{
	struct hashtab t;
	struct ent *e;
	int added;

	(void)state;
	hashtab_init(&t, sizeof(struct ent));
	assert_null(hashtab_find(&t, 0, 0));
	for (uint32_t i = 0; i < N; i++) {
		/* keys that share a or b: (i, 0) and (0, i), i > 0 */
		e = hashtab_get(&t, i, 0, &added);
		assert_non_null(e);
		assert_int_equal(added, 1);
		assert_int_equal(e->val, 0);
		e->val = i * 3 + 1;
		if (!i)
			continue;
		e = hashtab_get(&t, 0, i, &added);
		assert_non_null(e);
		assert_int_equal(added, 1);
		e->val = i * 7 + 2;
	}
	assert_int_equal(t.used, 2 * N - 1);
	for (uint32_t i = 0; i < N; i++) {
		e = hashtab_find(&t, i, 0);
		assert_non_null(e);
		assert_int_equal(e->val, i * 3 + 1);
		if (i) {
			e = hashtab_find(&t, 0, i);
			assert_non_null(e);
			assert_int_equal(e->val, i * 7 + 2);
		}
		e = hashtab_get(&t, i, 0, &added); /* there already */
		assert_int_equal(added, 0);
		assert_int_equal(e->val, i * 3 + 1);
	}
	assert_null(hashtab_find(&t, N, 0));
	assert_null(hashtab_find(&t, 1, 1));
	assert_int_equal(t.used, 2 * N - 1);
	hashtab_free(&t);
	assert_null(hashtab_find(&t, 1, 0));
}

static void walk_sees_each_once(void **state)
{
	struct hashtab t;
	uint64_t sum = 0, n = 0;
	int added;

	(void)state;
	hashtab_init(&t, sizeof(struct ent));
	for (uint64_t i = 1; i <= 1000; i++)
		assert_non_null(hashtab_get(&t, i << 40, 7, &added));
	for (size_t i = 0; i < t.cap; i++) {
		const struct ent *e = hashtab_at(&t, i);

		if (!e)
			continue;
		assert_int_equal(e->h.b, 7);
		sum += e->h.a >> 40;
		n++;
	}
	assert_int_equal(n, 1000);
	assert_int_equal(sum, 1000 * 1001 / 2);
	hashtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(grows_and_finds),
	    cmocka_unit_test(walk_sees_each_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
