// SPDX-License-Identifier: MIT
/*
 * escape.h - printing text that came from a trace (or from a file a trace
 * names) without letting it act on the user's terminal.
 *
 * A trace is untrusted (DESIGN.md, "Rules of trust"): a thread name, a
 * function name in the probes file, a symbol of a binary a maps file names,
 * the run summary, a command line or the environment can hold ESC ] ... BEL
 * (a title change, an OSC 52 clipboard write), ESC [2J, a C1 control, or a
 * Unicode bidirectional override that reorders what is shown. Every text
 * output of such a string goes through these helpers:
 *
 *  - a byte below 0x20 (but newline and tab where the text is meant to have
 *    lines), DEL, the UTF-8 encoding of a C1 control (U+0080..U+009F), of a
 *    bidirectional control (U+061C, U+200E/F, U+202A..U+202E,
 *    U+2066..U+2069) or of a line/paragraph separator (U+2028/9), and every
 *    byte that is not part of valid UTF-8 are written as \xNN, one per byte;
 *  - everything else (printable ASCII, valid UTF-8) is written as it is, so
 *    a name without such bytes prints unchanged.
 *
 * JSON output escapes the same characters as \u00XX (\uXXXX for the code
 * points above), plus '"' and '\\'; a byte that is not UTF-8 becomes the
 * code point of the same value, so the document is always valid UTF-8.
 */
#ifndef SPOOL_UTIL_ESCAPE_H
#define SPOOL_UTIL_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Keep newline and tab (text meant to have lines: a side file shown whole). */
#define ESCAPE_LINES 1u

/* How many escape_str/escape_strn results may be in use at once (e.g. as
 * arguments of one printf): the next call reuses the oldest buffer. */
#define ESCAPE_SLOTS 8

/* Write LEN bytes of S to OUT, escaped as above. */
void escape_write(FILE *out, const char *s, size_t len, unsigned flags);

/* LEN bytes of S escaped into a malloc'd, NUL-terminated string (NULL when
 * memory is short). */
char *escape_dup(const char *s, size_t len, unsigned flags);

/* S (NUL-terminated) as one escaped line: S itself when nothing in it needs
 * escaping, else an escaped copy in one of ESCAPE_SLOTS buffers owned by
 * this module (valid until ESCAPE_SLOTS more calls; printing is done by the
 * main thread only, so they are not locked). Never NULL: "?" when memory is
 * short, "(null)" for NULL. */
const char *escape_str(const char *s);

/* The same for at most MAX bytes of S, which may lack a NUL (a NUL-padded
 * fixed field such as a thread's 16-byte name). */
const char *escape_strn(const char *s, size_t max);

/* Whether LEN bytes of S hold anything escape_write would escape. */
int escape_needed(const char *s, size_t len, unsigned flags);

/* Whether LEN bytes of S are plain printable ASCII without '"' or '\\':
 * a JSON string as they are between quotes (a fast path for exports;
 * anything else goes through escape_json). */
int escape_json_plain(const char *s, size_t len);

/* LEN bytes of S as a JSON string, quotes included. */
void escape_json(FILE *out, const char *s, size_t len);

/* The NUL-terminated S as a JSON string, quotes included. */
void escape_json_str(FILE *out, const char *s);

#endif
