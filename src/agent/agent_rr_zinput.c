// SPDX-License-Identifier: MIT
/*
 * agent_rr_zinput.c - replaying input data that spool record --compress
 * packed: an RR_INPUT_ZREF record names a zstd frame in a stream file of
 * the recording (rr_area.h), and the thread that reads the chunk unpacks it,
 * into the program's buffer when the chunk fits the buffer's current piece,
 * else into a buffer of its own first.
 *
 * libzstd is loaded with dlopen in the constructor, and only when the
 * replay's log has such records or the recording was made with --compress
 * (RR_O_PACKED): no other program under the agent maps it. A --compress
 * recording loads it at the same point (and uses nothing of it), so that
 * the program's later mappings are where its replays have them
 * (doc/record.md, "Address-space layout"). Each thread unpacks with a static decompression context
 * in memory it maps itself (ZSTD_initStaticDCtx), so the read path makes
 * no allocation, takes no lock and makes no system call after the first
 * time. Frames were unpacked once when spool loaded the recording, which
 * checked their checksums; the frame carries its checksum still, and a
 * chunk that no longer unpacks to its size stops the replay (the caller
 * reports it).
 *
 * Not signal-safe by design, and not needed: a replay delivers the
 * recorded signals at the agent's own points, never in the middle of this.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_rr.h"

/* What spool uses of libzstd's ABI (zstd.h; the static-context functions
 * are exported by the shared library too). */
static size_t (*z_estimate)(void);
static void *(*z_init_static)(void *workspace, size_t size);
static size_t (*z_decompress)(void *dctx, void *dst, size_t cap, const void *src, size_t n);
static unsigned (*z_is_error)(size_t code);

/* Per thread: the context's workspace and the unpacking buffer. */
static __thread struct {
	void *ws, *dctx;
	size_t ws_size;
	unsigned char *buf;
	size_t cap;
} rr_z;

int agent_rr_zinput_init(int replay)
{
	void *h;

	/* The real dlopen: the agent's own (agent_main.c) would note a change
	 * of the program's maps that the program did not make. */
	if (!__atomic_load_n(&agent_real.dlopen, __ATOMIC_RELAXED))
		agent_resolve();
	if (!agent_real.dlopen)
		goto out;
	agent_self.busy++;
	h = agent_real.dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		z_estimate = (size_t(*)(void))dlsym(h, "ZSTD_estimateDCtxSize");
		z_init_static = (void *(*)(void *, size_t))dlsym(h, "ZSTD_initStaticDCtx");
		z_decompress = (size_t(*)(void *, void *, size_t, const void *, size_t))dlsym(
		    h, "ZSTD_decompressDCtx");
		z_is_error = (unsigned (*)(size_t))dlsym(h, "ZSTD_isError");
	}
	agent_self.busy--;
out:
	if (!replay)
		return 0; /* a recording only keeps the layout of its replays */
	if (!z_estimate || !z_init_static || !z_decompress || !z_is_error) {
		agent_disable("record/replay: the recording's input data is packed (spool record "
			      "--compress) and libzstd.so.1 cannot be loaded");
		return -1;
	}
	return 0;
}

static void *rr_z_map(size_t size)
{
	void *p = agent_vm_map(size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static const unsigned char *rr_z_unpack(const void *src, uint32_t packed, uint32_t raw,
					void *dst)
{
	size_t got;

	if (!rr_z.dctx) {
		size_t ws = (z_estimate() + 4095) & ~(size_t)4095;

		if (!(rr_z.ws = rr_z_map(ws)))
			return NULL;
		rr_z.ws_size = ws;
		rr_z.dctx = z_init_static(rr_z.ws, ws);
		if (!rr_z.dctx)
			return NULL;
	}
	if (!dst) {
		if (raw > rr_z.cap) {
			/* Chunks are at most RR_ZREF_MAX_RAW: grow to the
			 * next power of two from 64 KiB, at most a few times. */
			size_t cap = 64u << 10;

			while (cap < raw)
				cap *= 2;
			if (rr_z.buf)
				munmap(rr_z.buf, rr_z.cap);
			rr_z.cap = 0;
			if (!(rr_z.buf = rr_z_map(cap)))
				return NULL;
			rr_z.cap = cap;
		}
		dst = rr_z.buf;
	}
	got = z_decompress(rr_z.dctx, dst, raw, src, packed);
	if (z_is_error(got) || got != raw)
		return NULL;
	return dst;
}

const unsigned char *agent_rr_zinput_unpack(const void *src, uint32_t packed, uint32_t raw,
					    void *dst)
{
	const unsigned char *out;

	if (!z_decompress)
		return NULL;
	/* The agent's own work: libzstd asks the CPU for its features (cpuid,
	 * which faults to the agent under CPUID faulting: agent_rr_cpuid.c)
	 * and that answer is not the program's to replay. */
	agent_self.busy++;
	out = rr_z_unpack(src, packed, raw, dst);
	agent_self.busy--;
	return out;
}

void agent_rr_zinput_thread_end(void)
{
	if (rr_z.buf)
		munmap(rr_z.buf, rr_z.cap);
	if (rr_z.ws)
		munmap(rr_z.ws, rr_z.ws_size);
	rr_z.buf = NULL;
	rr_z.ws = rr_z.dctx = NULL;
	rr_z.cap = rr_z.ws_size = 0;
}
