// SPDX-License-Identifier: MIT
/*
 * escape.c - text from a trace printed so that it cannot drive the user's
 * terminal (escape.h says which characters and how).
 *
 * The input is walked one UTF-8 sequence at a time with a strict decoder
 * (no overlong forms, no surrogates, nothing above U+10FFFF): a byte that
 * does not start a valid sequence is one unit on its own, so a crafted
 * string cannot hide a control inside a broken sequence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/* The length of the valid UTF-8 sequence at s[0] (at most len bytes) and its
 * code point in *cp, or 0 when s[0] does not start one. */
static size_t utf8_unit(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char b = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	if (b >= 0xc2 && b <= 0xdf) {
		n = 2;
		*cp = b & 0x1f;
	} else if (b >= 0xe0 && b <= 0xef) {
		n = 3;
		*cp = b & 0x0f;
		if (b == 0xe0)
			lo = 0xa0; /* overlong */
		else if (b == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (b >= 0xf0 && b <= 0xf4) {
		n = 4;
		*cp = b & 0x07;
		if (b == 0xf0)
			lo = 0x90; /* overlong */
		else if (b == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		unsigned char c = s[i];

		if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xbf))
			return 0;
		*cp = (*cp << 6) | (c & 0x3f);
	}
	return n;
}

/* Whether code point cp is one a terminal acts on or that reorders text. */
static int cp_unsafe(uint32_t cp, unsigned flags)
{
	if (cp == '\n' || cp == '\t')
		return !(flags & ESCAPE_LINES);
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return 1;
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* Walk s: for each unit, its length and whether it is written as it is.
 * A unit of length 0 from utf8_unit is the one invalid byte. */
static size_t next_unit(const unsigned char *s, size_t len, unsigned flags, int *safe, uint32_t *cp)
{
	size_t n = utf8_unit(s, len, cp);

	if (n == 0) {
		*cp = s[0];
		*safe = 0;
		return 1;
	}
	*safe = !cp_unsafe(*cp, flags);
	return n;
}

#define BYTES_01 0x0101010101010101ull
#define BYTES_20 (0x20 * BYTES_01)
#define BYTES_80 (0x80 * BYTES_01)

/* Whether any byte of x is zero: exact (a borrow only ever leaves a zero
 * byte, which is itself found). */
static inline uint64_t has_zero_byte(uint64_t x)
{
	return (x - BYTES_01) & ~x & BYTES_80;
}

/* Whether all len bytes are printable ASCII (0x20-0x7e), and with json set
 * none is '"' or '\\': the common case, names in every event of an export,
 * where a walk of one byte and one branch at a time was a fifth of a
 * 10M-event Perfetto export. Eight bytes a step: a byte below 0x20 borrows
 * into its high bit (x - 0x20..) where its own high bit is clear (~x); a
 * byte of 0x7f or more has its high bit set in x or in x + 1. A carry or
 * borrow crosses into the next byte only from a byte that is itself
 * flagged, so "any byte flagged" is exact. */
static int all_printable_ascii(const unsigned char *u, size_t len, int json)
{
	uint64_t bad = 0, x;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&x, u + i, 8);
		bad |= ((x - BYTES_20) & ~x) | x | (x + BYTES_01);
		if (json)
			bad |= has_zero_byte(x ^ ('"' * BYTES_01)) |
			       has_zero_byte(x ^ ('\\' * BYTES_01));
	}
	if (bad & BYTES_80)
		return 0;
	for (; i < len; i++)
		if (u[i] < 0x20 || u[i] >= 0x7f || (json && (u[i] == '"' || u[i] == '\\')))
			return 0;
	return 1;
}

int escape_json_plain(const char *s, size_t len)
{
	return all_printable_ascii((const unsigned char *)s, len, 1);
}

int escape_needed(const char *s, size_t len, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	int safe;

	if (all_printable_ascii(u, len, 0))
		return 0;
	for (size_t i = 0; i < len;) {
		if (u[i] >= 0x20 && u[i] < 0x7f) {
			i++; /* printable ASCII: the common case, in every export */
			continue;
		}
		i += next_unit(u + i, len - i, flags, &safe, &cp);
		if (!safe)
			return 1;
	}
	return 0;
}

/* Escape len bytes of s into dst, which has room for 4 * len + 1 bytes. */
static void escape_into(char *dst, const char *s, size_t len, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	int safe;

	for (size_t i = 0; i < len;) {
		size_t n = next_unit(u + i, len - i, flags, &safe, &cp);

		for (size_t k = 0; k < n; k++) {
			unsigned char c = u[i + k];

			if (safe) {
				*dst++ = (char)c;
				continue;
			}
			*dst++ = '\\';
			*dst++ = 'x';
			*dst++ = hex[c >> 4];
			*dst++ = hex[c & 15];
		}
		i += n;
	}
	*dst = 0;
}

void escape_write(FILE *out, const char *s, size_t len, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0; /* start of the safe bytes not yet written */
	uint32_t cp;
	int safe;

	for (size_t i = 0; i < len;) {
		size_t n = next_unit(u + i, len - i, flags, &safe, &cp);

		if (!safe) {
			fwrite(u + run, 1, i - run, out);
			for (size_t k = 0; k < n; k++)
				fprintf(out, "\\x%02x", u[i + k]);
			run = i + n;
		}
		i += n;
	}
	fwrite(u + run, 1, len - run, out);
}

char *escape_dup(const char *s, size_t len, unsigned flags)
{
	char *d;

	if (len > (SIZE_MAX - 1) / 4)
		return NULL;
	d = malloc(4 * len + 1);
	if (d)
		escape_into(d, s, len, flags);
	return d;
}

/* The rotating buffers of escape_str. Only the main thread prints reports
 * and messages (the collector's and the replay's threads do not), so no
 * lock; they live until exit (reachable, not a leak). */
static struct {
	char *buf;
	size_t cap;
} slots[ESCAPE_SLOTS];
static unsigned next_slot;

const char *escape_strn(const char *s, size_t max)
{
	size_t len, need;
	char *p;
	unsigned k;

	if (!s)
		return "(null)";
	len = strnlen(s, max);
	if (len < max && !escape_needed(s, len, 0))
		return s; /* NUL-terminated, nothing to escape: as it is */
	if (len > (SIZE_MAX - 1) / 4)
		return "?";
	need = 4 * len + 1;
	k = next_slot;
	next_slot = (next_slot + 1) % ESCAPE_SLOTS;
	if (slots[k].cap < need) {
		p = realloc(slots[k].buf, need);
		if (!p)
			return "?";
		slots[k].buf = p;
		slots[k].cap = need;
	}
	escape_into(slots[k].buf, s, len, 0);
	return slots[k].buf;
}

const char *escape_str(const char *s)
{
	return escape_strn(s, SIZE_MAX);
}

void escape_json(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0; /* start of the bytes written as they are */
	uint32_t cp;
	int safe;

	/* Exports write millions of names: runs of plain bytes go out in one
	 * fwrite, not one per character. */
	fputc('"', out);
	for (size_t i = 0; i < len;) {
		size_t n;

		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '"' && u[i] != '\\') {
			i++;
			continue;
		}
		n = next_unit(u + i, len - i, 0, &safe, &cp);
		if (safe && cp != '"' && cp != '\\') {
			i += n;
			continue;
		}
		if (i > run)
			fwrite(u + run, 1, i - run, out);
		if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (char)cp);
		else
			fprintf(out, "\\u%04x", (unsigned)cp);
		i += n;
		run = i;
	}
	if (len > run)
		fwrite(u + run, 1, len - run, out);
	fputc('"', out);
}

void escape_json_str(FILE *out, const char *s)
{
	escape_json(out, s, strlen(s));
}
