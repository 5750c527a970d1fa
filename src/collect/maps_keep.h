// SPDX-License-Identifier: MIT
/*
 * maps_keep.h - a process's maps as the trace keeps them: the mappings it
 * has now, and the files it had mapped before and has unmapped since.
 *
 * The agent rereads /proc/self/maps after each dlopen and at exit, and the
 * collector writes the last text it read as proc/PID.maps, the one a
 * report symbolizes with. A library the program dlopens and dlcloses
 * before it ends (Debian's 7z loads its codecs from 7z.so and unloads it
 * at exit, after its threads are done) was missing from those last maps:
 * its locks had no name and its functions' callers were bare addresses.
 * So each new text keeps the file-backed lines of the one before whose
 * addresses no line of the new text maps: an address then has one meaning
 * in the kept text, the newest.
 */
#ifndef SPOOL_COLLECT_MAPS_KEEP_H
#define SPOOL_COLLECT_MAPS_KEEP_H

#include <stddef.h>

/* At most this many bytes of old lines are kept after a new text. */
#define MAPS_KEEP_MAX_BYTES (4u << 20)

/*
 * *text (malloc'ed, *len bytes, NUL-terminated, a copy of the program's
 * untrusted maps) followed by the lines of old (old_len bytes, the text
 * kept before, may be NULL) that name a file and overlap no mapping of
 * *text, in their order. *text is reallocated when lines are added.
 * Returns 0 or -ENOMEM (then *text is unchanged).
 */
int maps_keep_merge(const char *old, size_t old_len, char **text, size_t *len);

#endif
