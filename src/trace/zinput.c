// SPDX-License-Identifier: MIT
/*
 * zinput.c - compressed input data in a recording (spool record --compress;
 * doc/trace-format.md, "spool:input"). A KIND_INPUT record whose chunk of
 * data is large is written with op INPUT_OP_ZSTD: its data[] holds a
 * struct rec_input_zstd and then the chunk compressed with zstd, and nwords
 * counts those words. Loading a recording for a replay unpacks it again
 * (src/replay/rr_log.c), so nothing after the load sees the difference.
 *
 * zstd (libzstd, already a dependency) at level 1: pigz's 20 MB of text
 * input pack to about a third at ~400 MB/s here, and a packed chunk
 * unpacks at more than 1 GB/s. Data that does not shrink is written as it
 * is, so random input costs a failed attempt, never bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "trace.h"

/* Chunks smaller than this stay as they are: a frame's header and the
 * call would eat what little they save. */
#define ZINPUT_MIN 4096

int trace_zinput_init(struct trace_zinput *z, int level)
{
	memset(z, 0, sizeof(*z));
	z->level = level > 0 ? level : 1;
	z->cctx = ZSTD_createCCtx();
	if (!z->cctx)
		return -ENOMEM;
	/* Each frame carries a checksum of its content: a damaged chunk
	 * fails to unpack instead of giving the replay other bytes. */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, z->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1))) {
		ZSTD_freeCCtx(z->cctx);
		z->cctx = NULL;
		return -EINVAL;
	}
	return 0;
}

void trace_zinput_free(struct trace_zinput *z)
{
	ZSTD_freeCCtx(z->cctx);
	free(z->buf);
	memset(z, 0, sizeof(*z));
}

/* The chunk's data bytes (the meaningful part of data[]). */
static size_t zinput_raw(const struct rec_input *in)
{
	size_t n = in->len > in->chunk_off ? in->len - in->chunk_off : 0;

	return n < 8ull * in->nwords ? n : 8ull * in->nwords;
}

const struct rec_hdr *trace_zinput_pack(struct trace_zinput *z, const struct rec_hdr *rec)
{
	const struct rec_input *in = (const struct rec_input *)rec;
	struct rec_input *out;
	struct rec_input_zstd *zh;
	size_t raw, bound, need, packed, words;

	if (ev_kind(rec->word) != KIND_INPUT || ev_op(rec->word) || rec->size < sizeof(*in) ||
	    rec->size < sizeof(*in) + 8ull * in->nwords)
		return rec;
	raw = zinput_raw(in);
	if (raw < ZINPUT_MIN)
		return rec;
	bound = ZSTD_compressBound(raw);
	need = sizeof(*in) + sizeof(*zh) + bound + 8;
	if (need > z->cap) {
		void *p = realloc(z->buf, need);

		if (!p)
			return rec;
		z->buf = p;
		z->cap = need;
	}
	out = z->buf;
	zh = (struct rec_input_zstd *)out->data;
	packed = ZSTD_compress2(z->cctx, zh + 1, bound, in->data, raw);
	if (ZSTD_isError(packed) || sizeof(*zh) + packed + 8 > raw)
		return rec; /* does not shrink: as it is */
	memcpy(out, in, sizeof(*in));
	zh->raw = (uint32_t)raw;
	zh->packed = (uint32_t)packed;
	words = (sizeof(*zh) + packed + 7) / 8;
	memset((char *)(zh + 1) + packed, 0, words * 8 - sizeof(*zh) - packed);
	out->nwords = (uint32_t)words;
	out->h.size = (uint32_t)(sizeof(*in) + words * 8);
	out->h.word = ev_word(KIND_INPUT, ev_thread(rec->word), ev_obj(rec->word), INPUT_OP_ZSTD);
	z->saved += rec->size - out->h.size;
	return &out->h;
}

size_t trace_zinput_size(const struct rec_hdr *rec)
{
	const struct rec_input *in = (const struct rec_input *)rec;
	const struct rec_input_zstd *zh = (const struct rec_input_zstd *)in->data;

	if (rec->size < sizeof(*in) + sizeof(*zh) || in->nwords < 1)
		return 0;
	return sizeof(*in) + ((size_t)zh->raw + 7) / 8 * 8;
}

int trace_zinput_unpack(const struct rec_hdr *rec, void *dst, size_t cap)
{
	const struct rec_input *in = (const struct rec_input *)rec;
	const struct rec_input_zstd *zh = (const struct rec_input_zstd *)in->data;
	struct rec_input *out = dst;
	size_t size = trace_zinput_size(rec), got;

	if (!size || size > cap || sizeof(*zh) + (size_t)zh->packed > 8ull * in->nwords ||
	    rec->size < sizeof(*in) + 8ull * in->nwords)
		return -EPROTO;
	memcpy(out, in, sizeof(*in));
	got = ZSTD_decompress(out->data, zh->raw, zh + 1, zh->packed);
	if (ZSTD_isError(got) || got != zh->raw)
		return -EPROTO;
	memset((char *)out->data + zh->raw, 0, size - sizeof(*in) - zh->raw);
	out->nwords = (uint32_t)((size - sizeof(*in)) / 8);
	out->h.size = (uint32_t)size;
	out->h.word = ev_word(KIND_INPUT, ev_thread(rec->word), ev_obj(rec->word), 0);
	return (int)size;
}
