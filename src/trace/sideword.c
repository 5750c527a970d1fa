// SPDX-License-Identifier: MIT
/*
 * sideword.c - a name as one blank-free column of a side file, and back
 * (sideword.h says which bytes and why).
 */
#include "sideword.h"

static int sideword_plain(unsigned char c)
{
	return c > ' ' && c != 0x7f && c != '\\';
}

void sideword_write(FILE *f, const char *s)
{
	if (!*s) {
		fputs("\\000", f);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (sideword_plain(c))
			fputc(c, f);
		else
			fprintf(f, "\\%03o", c);
	}
}

static int sideword_odigit(char c)
{
	return c >= '0' && c <= '7';
}

char *sideword_unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		/* three octal digits of a byte: the first at most 3 */
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && sideword_odigit(r[2]) &&
		    sideword_odigit(r[3])) {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return s;
}
