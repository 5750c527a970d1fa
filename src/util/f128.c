// SPDX-License-Identifier: MIT
/*
 * f128.c - exact formatting of IEEE 754 binary128 values (f128.h), with a
 * big integer of base-1e9 limbs: value = m * 2^e with m < 2^113, written
 * as an integer N and a decimal exponent (m * 2^e when e >= 0; m * 5^-e
 * times 10^e when e < 0, since 2^e = 5^-e / 10^-e), then rounded to 36
 * digits on the exact digits. At most about 11,600 decimal digits (the
 * smallest subnormal), so the work is bounded; a typical value (|e| near
 * 112) takes a few hundred limb operations.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "f128.h"

#define F128_DIGITS 36
/* 2^16383 * 2^113 has 4966 digits; 5^16494 * 2^113 about 11,564 */
#define F128_LIMBS 1320

struct f128_big {
	uint32_t l[F128_LIMBS]; /* base 1e9, least significant first */
	unsigned n;
};

static void f128_mul(struct f128_big *b, uint32_t k)
{
	uint64_t carry = 0;

	for (unsigned i = 0; i < b->n; i++) {
		uint64_t v = (uint64_t)b->l[i] * k + carry;

		b->l[i] = (uint32_t)(v % 1000000000u);
		carry = v / 1000000000u;
	}
	while (carry && b->n < F128_LIMBS) {
		b->l[b->n++] = (uint32_t)(carry % 1000000000u);
		carry /= 1000000000u;
	}
}

static void f128_add(struct f128_big *b, uint32_t k)
{
	uint64_t carry = k;

	for (unsigned i = 0; i < b->n && carry; i++) {
		uint64_t v = b->l[i] + carry;

		b->l[i] = (uint32_t)(v % 1000000000u);
		carry = v / 1000000000u;
	}
	while (carry && b->n < F128_LIMBS) {
		b->l[b->n++] = (uint32_t)(carry % 1000000000u);
		carry /= 1000000000u;
	}
}

/* b = b * 2^k or b * 5^k, in chunks that fit a limb product. */
static void f128_mul_pow(struct f128_big *b, unsigned base, unsigned k)
{
	unsigned chunk = base == 2 ? 29 : 13; /* 2^29, 5^13 < 2^32 */
	uint32_t p = 1;

	for (unsigned i = 0; i < chunk; i++)
		p *= base;
	for (; k >= chunk; k -= chunk)
		f128_mul(b, p);
	p = 1;
	for (unsigned i = 0; i < k; i++)
		p *= base;
	if (p > 1)
		f128_mul(b, p);
}

/* The decimal digits of b (no leading zeros) into d; their count. */
static unsigned f128_digits(const struct f128_big *b, char *d)
{
	unsigned n = 0;
	char tmp[10];

	if (!b->n)
		return 0;
	n = (unsigned)snprintf(d, 11, "%u", b->l[b->n - 1]);
	for (unsigned i = b->n - 1; i-- > 0;) {
		snprintf(tmp, sizeof(tmp), "%09u", b->l[i]);
		memcpy(d + n, tmp, 9);
		n += 9;
	}
	d[n] = 0;
	return n;
}

int f128_format(const uint8_t raw[16], char *buf, size_t len)
{
	static __thread struct f128_big b;
	static __thread char d[F128_LIMBS * 9 + 16];
	uint64_t lo, hi, mlo, mhi;
	int neg, e, dexp;
	unsigned nd, exp;
	char digs[F128_DIGITS + 2];

	memcpy(&lo, raw, 8);
	memcpy(&hi, raw + 8, 8);
	neg = (int)(hi >> 63);
	exp = (unsigned)(hi >> 48) & 0x7fff;
	mhi = hi & 0xffffffffffffull;
	mlo = lo;
	if (exp == 0x7fff)
		return snprintf(buf, len, "%s%s", neg ? "-" : "", mhi | mlo ? "nan" : "inf");
	if (!exp && !mhi && !mlo)
		return snprintf(buf, len, "%s0", neg ? "-" : "");
	if (exp)
		mhi |= 1ull << 48;
	e = (exp ? (int)exp : 1) - 16383 - 112;
	/* b = m (113 bits): mhi * 2^64 + mlo, 32 bits at a time */
	b.n = 0;
	{
		const uint32_t parts[4] = {(uint32_t)(mhi >> 32), (uint32_t)mhi,
					   (uint32_t)(mlo >> 32), (uint32_t)mlo};

		for (int i = 0; i < 4; i++) {
			f128_mul_pow(&b, 2, 32);
			f128_add(&b, parts[i]);
		}
	}
	dexp = 0;
	if (e >= 0) {
		f128_mul_pow(&b, 2, (unsigned)e);
	} else {
		f128_mul_pow(&b, 5, (unsigned)-e);
		dexp = e;
	}
	nd = f128_digits(&b, d);
	/* value = 0.d * 10^(nd + dexp); round d to 36 digits, ties to even */
	{
		int x = (int)nd + dexp - 1; /* the decimal exponent of the first digit */
		unsigned keep = nd < F128_DIGITS ? nd : F128_DIGITS;
		int up = 0;

		memcpy(digs, d, keep);
		if (nd > keep) {
			char r = d[keep];
			int rest = 0;

			for (unsigned i = keep + 1; i < nd && !rest; i++)
				rest = d[i] != '0';
			up = r > '5' || (r == '5' && (rest || ((digs[keep - 1] - '0') & 1)));
		}
		for (int i = (int)keep - 1; up && i >= 0; i--) {
			if (digs[i] == '9') {
				digs[i] = '0';
			} else {
				digs[i]++;
				up = 0;
			}
		}
		if (up) { /* 999... rounded to 1000...: one more digit */
			memmove(digs + 1, digs, keep - 1);
			digs[0] = '1';
			x++;
		}
		while (keep > 1 && digs[keep - 1] == '0')
			keep--;
		digs[keep] = 0;
		/* %g: fixed when -4 <= x < precision, else d.ddde+XX */
		if (x < -4 || x >= F128_DIGITS)
			return snprintf(buf, len, "%s%c%s%.*se%c%02d", neg ? "-" : "", digs[0],
					keep > 1 ? "." : "", (int)keep - 1, digs + 1,
					x < 0 ? '-' : '+', x < 0 ? -x : x);
		if (x < 0)
			return snprintf(buf, len, "%s0.%.*s%s", neg ? "-" : "", -x - 1,
					"0000", digs);
		if ((unsigned)x + 1 >= keep)
			return snprintf(buf, len, "%s%s%.*s", neg ? "-" : "", digs,
					x + 1 - (int)keep, "000000000000000000000000000000000000");
		return snprintf(buf, len, "%s%.*s.%s", neg ? "-" : "", x + 1, digs, digs + x + 1);
	}
}

long double f128_to_ld(const uint8_t raw[16])
{
	uint64_t lo, hi, mhi;
	unsigned exp;
	long double m;

	memcpy(&lo, raw, 8);
	memcpy(&hi, raw + 8, 8);
	exp = (unsigned)(hi >> 48) & 0x7fff;
	mhi = hi & 0xffffffffffffull;
	if (exp == 0x7fff) {
		m = mhi | lo ? NAN : INFINITY;
	} else {
		m = ldexpl((long double)(mhi | (exp ? 1ull << 48 : 0)), 64) + (long double)lo;
		m = ldexpl(m, (exp ? (int)exp : 1) - 16383 - 112);
	}
	return hi >> 63 ? -m : m;
}

/* The sign-magnitude bits as one ordered key: negative values reversed. */
static void f128_key(const uint8_t raw[16], uint64_t *hi, uint64_t *lo)
{
	memcpy(lo, raw, 8);
	memcpy(hi, raw + 8, 8);
	if (*hi >> 63) {
		*hi = ~*hi;
		*lo = ~*lo;
	} else {
		*hi |= 1ull << 63;
	}
}

static int f128_nan(uint64_t hi, uint64_t lo)
{
	return ((hi >> 48) & 0x7fff) == 0x7fff && ((hi & 0xffffffffffffull) | lo);
}

int f128_less(const uint8_t a[16], const uint8_t b[16])
{
	uint64_t ah, al, bh, bl;

	memcpy(&al, a, 8);
	memcpy(&ah, a + 8, 8);
	memcpy(&bl, b, 8);
	memcpy(&bh, b + 8, 8);
	if (f128_nan(ah, al) || f128_nan(bh, bl))
		return 0;
	if (!((ah << 1) | al) && !((bh << 1) | bl))
		return 0; /* -0 == +0 */
	f128_key(a, &ah, &al);
	f128_key(b, &bh, &bl);
	return ah < bh || (ah == bh && al < bl);
}
