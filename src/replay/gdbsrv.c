// SPDX-License-Identifier: MIT
/*
 * gdbsrv.c - `spool replay --gdbserver PORT|-`: spool is gdb's remote
 * target for a replay, so that an unmodified gdb can run it backwards
 * (reverse-continue, reverse-step, and what gdb builds from them).
 *
 *   gdb -ex 'target remote | spool replay --gdbserver - TRACE'
 *   spool replay --gdbserver 4711 TRACE   then (gdb) target extended-remote :4711
 *
 * This file answers gdb's packets (the GDB remote serial protocol, all-stop,
 * no multiprocess extensions); gdbsrv_inf.c runs the replay under ptrace,
 * gdbsrv_rev.c goes back. gdb sees the threads by stable ids (the first
 * replay's pid plus the creation order), which stay the same when a reverse
 * command starts the replay again. `monitor when` says where the replay
 * stands.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../collect/run_env.h"
#include "../util/log.h"
#include "rr_fds.h"
#include "rr_log.h"
#include "gdbsrv.h"
#include "gdbsrv_int.h"
#include "rr_snap_pick.h"

/* Linux signal numbers to gdb's (the protocol's) */
static const uint8_t sig_to_gdb[32] = {0,  1,  2,  3,  4,  5,  6,  10, 8,  9,  30,
				       11, 31, 13, 14, 15, 0,  20, 19, 17, 18, 21,
				       22, 16, 24, 25, 26, 27, 28, 23, 32, 12};

static int gdb_sig(int sig)
{
	return sig > 0 && sig < 32 ? sig_to_gdb[sig] : 0;
}

static int linux_sig(int g)
{
	if (g <= 0)
		return 0; /* (SIGSTKFLT has no gdb number: it was taken for 0) */
	for (int i = 1; i < 32; i++)
		if (sig_to_gdb[i] == g)
			return i;
	return 0;
}

static long vtid(struct gdbsrv *s, int vidx)
{
	return (long)s->vpid + vidx;
}

/* A thread id of a packet: -1 all, 0 any, else the vidx; -2 unknown. */
static int parse_tid(struct gdbsrv *s, const char *p, char **end)
{
	long v;

	if (p[0] == '-' && p[1] == '1') {
		if (end)
			*end = (char *)p + 2;
		return -1;
	}
	v = strtol(p, end, 16);
	if (v == 0)
		return -1;
	if (v < (long)s->vpid || !gdbsrv_inf_vthread(&s->inf, (int)(v - (long)s->vpid)))
		return -2;
	return (int)(v - (long)s->vpid);
}

static struct gdbsrv_thread *cur_thread(struct gdbsrv *s, int which)
{
	struct gdbsrv_thread *t = NULL;

	if (which >= 0)
		t = gdbsrv_inf_vthread(&s->inf, which);
	if (!t)
		t = gdbsrv_inf_vthread(&s->inf, s->last.vidx);
	if (!t && s->inf.nth)
		t = &s->inf.th[0];
	return t;
}

static void stop_reply(struct gdbsrv *s, const struct gdbsrv_stop *st, char *out, size_t len)
{
	long id = vtid(s, st->vidx);

	switch (st->kind) {
	case GDBSRV_STOP_EXIT:
		if (st->sig)
			snprintf(out, len, "X%02x", gdb_sig(st->sig));
		else
			snprintf(out, len, "W%02x", st->code & 0xff);
		break;
	case GDBSRV_STOP_START:
		snprintf(out, len, "T05thread:%lx;%s", id, st->code ? "replaylog:begin;" : "");
		break;
	case GDBSRV_STOP_BP:
		snprintf(out, len, "T05thread:%lx;swbreak:;", id);
		break;
	case GDBSRV_STOP_WATCH:
		snprintf(out, len, "T05thread:%lx;%s:%" PRIx64 ";", id,
			 st->wp.type == 3 ? "rwatch" : st->wp.type == 4 ? "awatch" : "watch",
			 st->wp.addr);
		break;
	case GDBSRV_STOP_SIGNAL:
	case GDBSRV_STOP_INTR:
		snprintf(out, len, "T%02xthread:%lx;", gdb_sig(st->sig), id);
		break;
	default:
		snprintf(out, len, "T05thread:%lx;", id);
	}
}

static int reply(struct gdbsrv *s, const char *txt)
{
	return gdbsrv_rsp_puts(&s->rsp, txt);
}

static int reply_stop(struct gdbsrv *s, const struct gdbsrv_stop *st)
{
	char buf[128];

	s->last = *st;
	/* gdb takes the stopped thread for the general one (Hg) from here on
	 * (remote.c, record_currthread), as gdbserver makes it: its next g,
	 * p or m asks for that thread's without an Hg first. An Hg left from
	 * before (info threads) answered the stop's g with another thread's
	 * registers, whose pc has no breakpoint: gdb took the hit for a trap
	 * of a breakpoint gone and went on silently, and continue missed
	 * hits (tests/integ/255: reverse-continue seemed to stop at an
	 * earlier hit than the forward session's first, which had missed it). */
	if (st->kind != GDBSRV_STOP_EXIT)
		s->gvidx = (int)st->vidx;
	s->wstep_vidx1 = ARCH_GDB_WATCH_BEFORE && st->kind == GDBSRV_STOP_WATCH ? st->vidx + 1 : 0;
	stop_reply(s, st, buf, sizeof(buf));
	return reply(s, buf);
}

/* qXfer:OBJECT:read:ANNEX:OFF,LEN of data */
static int reply_xfer(struct gdbsrv *s, const char *args, const void *data, size_t size)
{
	static char out[GDBSRV_PKT_MAX];
	unsigned long off, len;

	if (sscanf(args, "%lx,%lx", &off, &len) != 2)
		return reply(s, "E01");
	if (len > sizeof(out) / 2 - 16)
		len = sizeof(out) / 2 - 16;
	if (off >= size)
		return reply(s, "l");
	if (len > size - off)
		len = size - off;
	out[0] = off + len < size ? 'm' : 'l';
	memcpy(out + 1, (const char *)data + off, len);
	return gdbsrv_rsp_put(&s->rsp, out, len + 1);
}

static int read_file(const char *path, char *buf, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*len = 0;
	if (fd < 0)
		return -errno;
	while (*len < cap && (n = read(fd, buf + *len, cap - *len)) > 0)
		*len += (size_t)n;
	close(fd);
	return 0;
}

static int do_qxfer(struct gdbsrv *s, char *p)
{
	static char buf[1 << 16];
	char path[64];
	size_t len;

	if (!strncmp(p, "features:read:target.xml:", 25)) {
		const char *x = arch_gdb_target_xml(&len);

		return reply_xfer(s, p + 25, x, len);
	}
	if (!strncmp(p, "auxv:read::", 11) && s->inf.pid) {
		snprintf(path, sizeof(path), "/proc/%d/auxv", (int)s->inf.pid);
		if (read_file(path, buf, sizeof(buf), &len) < 0)
			return reply(s, "E01");
		return reply_xfer(s, p + 11, buf, len);
	}
	if (!strncmp(p, "exec-file:read:", 15) && s->inf.pid) {
		char *annex_end = strchr(p + 15, ':');
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/exe", (int)s->inf.pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n < 0 || !annex_end)
			return reply(s, "E01");
		return reply_xfer(s, annex_end + 1, buf, (size_t)n);
	}
	return reply(s, "");
}

static int do_mem_read(struct gdbsrv *s, const char *p)
{
	static uint8_t data[GDBSRV_PKT_MAX / 2];
	static char hex[GDBSRV_PKT_MAX + 1];
	unsigned long addr, len;
	size_t got = 0;

	if (sscanf(p, "%lx,%lx", &addr, &len) != 2)
		return reply(s, "E01");
	if (len > sizeof(data) - 1)
		len = sizeof(data) - 1;
	/* page by page: the readable part of a range that runs off a mapping */
	while (got < len) {
		size_t chunk = 4096 - ((addr + got) & 4095);

		if (chunk > len - got)
			chunk = len - got;
		if (gdbsrv_inf_read(&s->inf, addr + got, data + got, chunk) < 0)
			break;
		got += chunk;
	}
	if (!got)
		return reply(s, "E01");
	gdbsrv_hex(hex, data, got);
	return reply(s, hex);
}

static int do_mem_write(struct gdbsrv *s, const char *p)
{
	static uint8_t data[GDBSRV_PKT_MAX / 2];
	unsigned long addr, len;
	const char *colon = strchr(p, ':');

	if (sscanf(p, "%lx,%lx", &addr, &len) != 2 || !colon || len > sizeof(data) ||
	    strlen(colon + 1) < 2 * len || gdbsrv_unhex(data, colon + 1, len) < 0)
		return reply(s, "E01");
	return reply(s, gdbsrv_inf_write(&s->inf, addr, data, len) < 0 ? "E01" : "OK");
}

static int do_regs(struct gdbsrv *s, const char *p, int write)
{
	static char out[2 * 1024 + 1];
	struct gdbsrv_thread *t = cur_thread(s, s->gvidx);
	uint8_t v[ARCH_GDB_REG_MAX];
	size_t o = 0;

	if (!t)
		return reply(s, "E01");
	for (int i = 0; i < GDBSRV_NREGS; i++) {
		int size = arch_gdb_reg_size(i);

		if (write) {
			if (strlen(p + o) < 2 * (size_t)size || gdbsrv_unhex(v, p + o, (size_t)size) < 0)
				break;
			arch_gdb_reg_set(t->tid, i, v);
		} else if (arch_gdb_reg_get(t->tid, i, v) < 0)
			return reply(s, "E01");
		else
			gdbsrv_hex(out + o, v, (size_t)size);
		o += 2 * (size_t)size;
	}
	return reply(s, write ? "OK" : out);
}

static int do_reg(struct gdbsrv *s, const char *p, int write)
{
	struct gdbsrv_thread *t = cur_thread(s, s->gvidx);
	char *end, hex[40];
	long n = strtol(p, &end, 16);
	uint8_t v[ARCH_GDB_REG_MAX];
	int size = arch_gdb_reg_size((int)n);

	if (!t || size < 0)
		return reply(s, write ? "E01" : "E01");
	if (write) {
		if (*end != '=' || strlen(end + 1) < 2 * (size_t)size ||
		    gdbsrv_unhex(v, end + 1, (size_t)size) < 0 || arch_gdb_reg_set(t->tid, (int)n, v) < 0)
			return reply(s, "E01");
		return reply(s, "OK");
	}
	if (arch_gdb_reg_get(t->tid, (int)n, v) < 0)
		return reply(s, "E01");
	gdbsrv_hex(hex, v, (size_t)size);
	return reply(s, hex);
}

static int do_z(struct gdbsrv *s, const char *p, int insert)
{
	struct gdbsrv_cfg *c = &s->user;
	unsigned long addr, len;
	int type = p[0] - '0';

	if (sscanf(p + 1, ",%lx,%lx", &addr, &len) != 2)
		return reply(s, "E01");
	if (type == 0) {
		if (insert) {
			if (gdbsrv_cfg_has_bp(c, addr))
				return reply(s, "OK");
			if (c->nbp >= GDBSRV_MAX_BP)
				return reply(s, "E01");
			c->bp[c->nbp++] = addr;
			gdbsrv_inf_set_cfg(&s->inf, c);
			if (!gdbsrv_cfg_has_bp(&s->inf.ins, addr)) {
				c->nbp--;
				c->bp[c->nbp] = 0;
				return reply(s, "E01");
			}
			return reply(s, "OK");
		}
		for (uint32_t i = 0; i < c->nbp; i++)
			if (c->bp[i] == addr) {
				memmove(&c->bp[i], &c->bp[i + 1], (c->nbp - i - 1) * sizeof(c->bp[0]));
				c->bp[--c->nbp] = 0;
				break;
			}
		gdbsrv_inf_set_cfg(&s->inf, c);
		return reply(s, "OK");
	}
	if (type >= 2 && type <= 4) {
		struct gdbsrv_wp w = {.addr = addr, .len = (uint32_t)len, .type = (uint32_t)type};
		int k = gdbsrv_cfg_find_wp(c, &w);

		if (insert) {
			if (k >= 0)
				return reply(s, "OK");
			if (c->nwp >= GDBSRV_MAX_WP || (len != 1 && len != 2 && len != 4 && len != 8) ||
			    addr % len)
				return reply(s, "E01");
			/* one this CPU cannot watch: gdb says it could not
			 * insert it */
			if (arch_gdb_watch_ok(addr, (uint32_t)len, (uint32_t)type) < 0) {
				log_warn("gdbserver: this CPU cannot watch %lu bytes at %#lx "
					 "(type %d)", len, addr, type);
				return reply(s, "E01");
			}
			c->wp[c->nwp++] = w;
		} else if (k >= 0) {
			memmove(&c->wp[k], &c->wp[k + 1], (c->nwp - (uint32_t)k - 1) * sizeof(w));
			memset(&c->wp[--c->nwp], 0, sizeof(w));
		}
		gdbsrv_inf_set_cfg(&s->inf, c);
		return reply(s, "OK");
	}
	return reply(s, ""); /* hardware breakpoints: gdb uses software ones */
}

/*
 * gdb's step over the watchpoint it was just told of (ARCH_GDB_WATCH_BEFORE:
 * gdb for aarch64 expects the access not made yet, removes its
 * watchpoints and steps the thread once, in the direction it goes): the
 * stop reported was after the access already (gdbsrv_inf.c; in reverse,
 * just before it, gdbsrv_rev.c), where that step would end on a native
 * target, so the step is answered at once, in place, and the history gets
 * nothing. 1 when st is that answer.
 */
static int wstep_answer(struct gdbsrv *s, int vidx, int rev, struct gdbsrv_stop *st)
{
	struct gdbsrv_thread *t = gdbsrv_inf_vthread(&s->inf, vidx);
	int ok = vidx >= 0 && s->wstep_vidx1 == vidx + 1 && s->wstep_rev == rev && t;

	s->wstep_vidx1 = 0;
	if (!ok)
		return 0;
	memset(st, 0, sizeof(*st));
	st->kind = GDBSRV_STOP_STEP;
	st->vidx = vidx;
	st->tid = t->tid;
	return 1;
}

/* vCont;ACTION[:TID]... in all-stop: at most one thread steps; the others
 * continue if an action without a thread (or a continue) says so. */
static int do_vcont(struct gdbsrv *s, char *p)
{
	struct gdbsrv_stop st;
	int step = -1, others = 0, rc, sig_set = 0;

	while (*p == ';') {
		char act = p[1];
		int sig = 0, who = -1;
		char *q = p + 2;

		if (act == 'C' || act == 'S')
			sig = (int)strtol(q, &q, 16);
		if (*q == ':')
			who = parse_tid(s, q + 1, &q);
		if (act == 's' || act == 'S') {
			step = who >= 0 ? who : cur_thread(s, s->cvidx) ? cur_thread(s, s->cvidx)->vidx : 0;
			if (who < 0)
				others = 0;
		} else if (act == 'c' || act == 'C')
			others = 1;
		/* the signal gdb passes on (C, S), or none: a crash gdb was
		 * told of is delivered only if gdb says so */
		/* (the first action that names a thread is its own: gdb's
		 * `vCont;C0b:TID;c` delivers SIGSEGV to TID, the `c` is for
		 * the others; before, the `c` took the signal back) */
		if (s->last.kind == GDBSRV_STOP_SIGNAL && !sig_set &&
		    (who < 0 || who == s->last.vidx)) {
			struct gdbsrv_thread *t = gdbsrv_inf_vthread(&s->inf, s->last.vidx);

			if (t)
				t->sig = linux_sig(sig);
			sig_set = 1;
		}
		p = q;
		while (*p && *p != ';')
			p++;
	}
	if (step < 0)
		others = 1;
	if (wstep_answer(s, step, 0, &st))
		return reply_stop(s, &st);
	s->wstep_vidx1 = 0;
	s->wstep_rev = 0;
	rc = gdbsrv_forward(s, step, others, &st);
	if (rc < 0)
		return reply(s, "E01");
	return reply_stop(s, &st);
}

static int reverse(struct gdbsrv *s, int step)
{
	struct gdbsrv_stop st;
	struct gdbsrv_thread *t = cur_thread(s, s->cvidx);
	int rc;

	if (s->inf.exited || !s->inf.pid)
		return reply(s, "E01");
	if (step && wstep_answer(s, t ? t->vidx : 0, 1, &st))
		return reply_stop(s, &st);
	s->wstep_vidx1 = 0;
	s->wstep_rev = 1;
	rc = step ? gdbsrv_reverse_step(s, t ? t->vidx : 0, &st) : gdbsrv_reverse_continue(s, &st);
	/* a failed search may have left a replay elsewhere: back to where
	 * gdb believes the program is (refusals start nothing) */
	if (rc < 0 && rc != -EINVAL && gdbsrv_goto_hist(s, &st) < 0)
		log_err("gdbserver: the replay cannot return to the point it was at");
	if (rc < 0 && !s->inf.pid) {
		st.kind = GDBSRV_STOP_EXIT;
		st.code = 1;
		st.sig = 0;
		return reply_stop(s, &st);
	}
	if (rc < 0)
		return reply(s, "E01");
	return reply_stop(s, &st);
}

static int do_monitor(struct gdbsrv *s, const char *hex)
{
	char cmd[256], text[512], out[1100];
	size_t n = strlen(hex) / 2;
	struct gdbsrv_thread *t = cur_thread(s, s->cvidx);

	if (n >= sizeof(cmd) || gdbsrv_unhex(cmd, hex, n) < 0)
		return reply(s, "E01");
	cmd[n] = 0;
	if (!strcmp(cmd, "when") || !strcmp(cmd, "spool when")) {
		snprintf(text, sizeof(text),
			 "stop %" PRIu64 " of the replay (%zu commands from its start), thread %d "
			 "(LWP %ld, creation order %d), replays started: %" PRIu64
			 ", from a checkpoint: %" PRIu64 ", from a recorded snapshot: %" PRIu64
			 ", checkpoints: %d (%" PRIu64 " made)\n",
			 gdbsrv_pos_stops(&s->hist), s->hist.n, t ? t->vidx + 1 : 0,
			 vtid(s, t ? t->vidx : 0), t ? t->vidx : 0, s->replays, s->ckpt_starts,
			 s->snap_starts, s->nckpt, s->ckpts_taken);
	} else
		snprintf(text, sizeof(text),
			 "spool gdbserver: monitor commands: when (where the replay stands)\n");
	out[0] = 'O';
	gdbsrv_hex(out + 1, text, strlen(text));
	if (reply(s, out) < 0)
		return -EPIPE;
	return reply(s, "OK");
}

static int do_threads(struct gdbsrv *s)
{
	char out[GDBSRV_PKT_MAX];
	size_t o = 0;

	if (!s->inf.nth || s->inf.exited)
		return reply(s, "l");
	out[o++] = 'm';
	for (int i = 0; i < s->inf.nth && o < sizeof(out) - 24; i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%lx", i ? "," : "",
				      vtid(s, s->inf.th[i].vidx));
	return gdbsrv_rsp_put(&s->rsp, out, o);
}

static int dispatch(struct gdbsrv *s)
{
	char *p = s->rsp.buf, buf[256];
	int who;

	switch (p[0]) {
	case 0x03: /* an interrupt while stopped: nothing runs */
		return 0;
	case '?':
		return reply_stop(s, &s->last);
	case '!':
		return reply(s, "OK");
	case 'g':
		return do_regs(s, p + 1, 0);
	case 'G':
		return do_regs(s, p + 1, 1);
	case 'p':
		return do_reg(s, p + 1, 0);
	case 'P':
		return do_reg(s, p + 1, 1);
	case 'm':
		return do_mem_read(s, p + 1);
	case 'M':
		return do_mem_write(s, p + 1);
	case 'Z':
		return do_z(s, p + 1, 1);
	case 'z':
		return do_z(s, p + 1, 0);
	case 'H':
		who = parse_tid(s, p + 2, NULL);
		if (who == -2)
			return reply(s, "E01");
		if (p[1] == 'g')
			s->gvidx = who;
		else
			s->cvidx = who;
		return reply(s, "OK");
	case 'T':
		return reply(s, parse_tid(s, p + 1, NULL) >= 0 ? "OK" : "E01");
	case 'c':
		return do_vcont(s, strcpy(buf, ";c") ? buf : buf);
	case 's':
		return do_vcont(s, strcpy(buf, ";s") ? buf : buf);
	case 'b':
		if (p[1] == 'c' || p[1] == 's')
			return reverse(s, p[1] == 's');
		return reply(s, "");
	case 'k':
		gdbsrv_inf_kill(&s->inf);
		return 1;
	case 'D':
		reply(s, "OK");
		return 1;
	case 'q':
		if (!strncmp(p, "qSupported", 10))
			return reply(s, "PacketSize=3fff;qXfer:features:read+;qXfer:auxv:read+;"
					"qXfer:exec-file:read+;ReverseContinue+;ReverseStep+;"
					"QStartNoAckMode+;swbreak+;vContSupported+");
		if (!strncmp(p, "qXfer:", 6))
			return do_qxfer(s, p + 6);
		if (!strcmp(p, "qC")) {
			struct gdbsrv_thread *t = cur_thread(s, -1);

			snprintf(buf, sizeof(buf), "QC%lx", vtid(s, t ? t->vidx : 0));
			return reply(s, buf);
		}
		if (!strcmp(p, "qfThreadInfo"))
			return do_threads(s);
		if (!strcmp(p, "qsThreadInfo"))
			return reply(s, "l");
		if (!strncmp(p, "qAttached", 9))
			return reply(s, "0");
		if (!strncmp(p, "qSymbol", 7))
			return reply(s, "OK");
		if (!strncmp(p, "qRcmd,", 6))
			return do_monitor(s, p + 6);
		if (!strncmp(p, "qThreadExtraInfo,", 17)) {
			char txt[64], hex[130];
			int v = parse_tid(s, p + 17, NULL);
			struct gdbsrv_thread *t = v >= 0 ? gdbsrv_inf_vthread(&s->inf, v) : NULL;

			snprintf(txt, sizeof(txt), "replay thread %d, LWP %d", v + 1,
				 t ? (int)t->tid : 0);
			gdbsrv_hex(hex, txt, strlen(txt));
			return reply(s, hex);
		}
		return reply(s, "");
	case 'Q':
		if (!strcmp(p, "QStartNoAckMode")) {
			int rc = reply(s, "OK");

			s->rsp.noack = 1;
			return rc;
		}
		return reply(s, "");
	case 'v':
		if (!strcmp(p, "vCont?"))
			return reply(s, "vCont;c;C;s;S");
		if (!strncmp(p, "vCont;", 5))
			return do_vcont(s, p + 5);
		if (!strncmp(p, "vKill", 5)) {
			gdbsrv_inf_kill(&s->inf);
			return reply(s, "OK");
		}
		if (!strncmp(p, "vRun", 4)) { /* gdb's run: the replay from its start */
			struct gdbsrv_pos at = {0};
			struct gdbsrv_stop st = {0};

			struct gdbsrv_pos none = {0};

			if (gdbsrv_start_before(s, &none, &at, 0) < 0)
				return reply(s, "E01");
			gdbsrv_pos_free(&at);
			s->hist.n = 0;
			st = s->start_st;
			return reply_stop(s, &st);
		}
		return reply(s, "");
	default:
		return reply(s, "");
	}
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static int listen_tcp(const char *port_s, int *fd_out)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	char *end;
	long port = strtol(port_s, &end, 10);
	socklen_t alen = sizeof(a);
	int l, c, one = 1;

	if (*end || port < 0 || port > 65535) {
		log_err("--gdbserver '%s': want a port number or - (gdb's pipe)", port_s);
		return -EINVAL;
	}
	a.sin_port = htons((uint16_t)port);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return -errno;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &alen) < 0) {
		int e = -errno;

		log_err("--gdbserver %s: cannot listen on 127.0.0.1:%ld: %s", port_s, port,
			strerror(-e));
		close(l);
		return e;
	}
	fprintf(stderr, "spool: gdbserver listening on 127.0.0.1:%u (gdb: target extended-remote "
			"127.0.0.1:%u)\n",
		ntohs(a.sin_port), ntohs(a.sin_port));
	do
		c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	while (c < 0 && errno == EINTR);
	close(l);
	if (c < 0)
		return -errno;
	*fd_out = c;
	return 0;
}

/*
 * SIGTERM and SIGHUP end spool as before (their default action: the
 * kernel kills every replay and copy, traced with PTRACE_O_EXITKILL, and
 * the janitor removes the rest), but spool says so first: before, a
 * replay ended by `timeout` vanished without a word. Async-signal-safe:
 * write, then the default action again.
 */
static void gdbsrv_on_stop(int sig)
{
	static const char term[] = "spool: error: replay stopped by SIGTERM to spool: the "
				   "replayed program is killed\n",
			  hup[] = "spool: error: replay stopped by SIGHUP to spool: the "
				  "replayed program is killed\n",
			  intr[] = "spool: error: replay stopped by SIGINT to spool: the "
				   "replayed program is killed\n";
	const char *m = sig == SIGTERM ? term : sig == SIGHUP ? hup : intr;
	size_t len = sig == SIGTERM ? sizeof(term) : sig == SIGHUP ? sizeof(hup) : sizeof(intr);

	if (write(2, m, len - 1) < 0) {
		/* (nothing to do: the signal ends spool anyway) */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Each of SIGTERM, SIGHUP (and SIGINT when spool listens on a port, where
 * ^C ends it) not ignored at the start gets gdbsrv_on_stop. */
static void gdbsrv_stop_signals(const char *where)
{
	struct sigaction sa = {.sa_handler = gdbsrv_on_stop, .sa_flags = SA_RESETHAND}, old;
	const int sigs[] = {SIGTERM, SIGHUP, SIGINT};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigs[i] == SIGINT && !strcmp(where, "-"))
			continue; /* (gdb's: an interrupt, gdbsrv_rsp_sigint_init) */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
}

int gdbsrv_main(const char *where, const char *trace, char **prog_argv, uint64_t goto_event,
		uint64_t goto_count)
{
	struct gdbsrv *s = calloc(1, sizeof(*s));
	char self[PATH_MAX];
	ssize_t n;
	int rc = 1, fd = -1;

	if (!s)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	/* ^C at gdb's terminal reaches its whole process group, spool too
	 * under `target remote |`: gdb turns it into an interrupt packet, and
	 * spool stops a running replay on either (gdbsrv_rsp_sigint_init),
	 * stays when stopped. Listening on a port, spool runs at a terminal
	 * of its own, where ^C ends it like SIGTERM and SIGHUP (their default
	 * actions: the replays end with spool, the janitor removes the rest) */
	if (!strcmp(where, "-") && gdbsrv_rsp_sigint_init() < 0)
		signal(SIGINT, SIG_IGN);
	gdbsrv_stop_signals(where);
	s->inf.memfd = -1;
	s->inf.watch_in = s->inf.watch_out = -1;
	s->gvidx = s->cvidx = -1;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		goto out_free;
	self[n] = 0;
	s->inf.spool = self;
	s->inf.trace = trace;
	s->inf.prog_argv = prog_argv;
	s->inf.goto_event = goto_event;
	s->inf.goto_count = goto_count;
	s->inf.jump_turn = UINT64_MAX;
	if (!strcmp(where, "-")) {
		/* gdb's pipe: keep it off 0 and 1, which the program gets */
		s->rsp.in = fcntl(0, F_DUPFD_CLOEXEC, 3);
		s->rsp.out = fcntl(1, F_DUPFD_CLOEXEC, 3);
		if (s->rsp.in < 0 || s->rsp.out < 0)
			goto out_free;
	} else {
		if (listen_tcp(where, &fd) < 0)
			goto out_free;
		s->rsp.in = s->rsp.out = fd;
	}
	snprintf(s->inf.tmp, sizeof(s->inf.tmp), "%s/spool-gdbsrv-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(s->inf.tmp)) {
		log_err("cannot make a directory in %s: %s", s->inf.tmp, strerror(errno));
		goto out_free;
	}
	if (gdbsrv_janitor_start(s->inf.tmp) < 0)
		log_warn("gdbserver: no janitor process: if spool is killed, %s is left", s->inf.tmp);
	{
		char dropped[512];
		int e;

		s->inf.env = run_env_load(trace, 0, dropped, sizeof(dropped), &e);
		if (!s->inf.env && e != -ENOENT)
			log_warn("%s: the recorded environment is unreadable (%s): the program "
				 "gets spool's",
				 trace, strerror(-e));
		else if (dropped[0])
			log_info("the replay takes %s from spool's environment, not from the "
				 "recording (spool replay --trust-env is not available here)",
				 dropped);
	}
	{
		/* the descriptors the recorded program inherited: the program
		 * gets stand-ins at those numbers (gdbsrv_inf.c), nothing else */
		struct rr_info *info = calloc(1, sizeof(*info));

		if (info && rr_info_read(trace, info) == 0)
			s->inf.nfds = rr_fds_parse(info->fds, s->inf.fds, RR_FDS_MAX);
		free(info);
	}
	{
		const char *e = getenv("SPOOL_GDBSRV_CHECKPOINTS"), *ms;

		/* (a CPU without copies of the replay: none, arch_gdb.h) */
		s->ckpt_off = !ARCH_GDB_CKPT || (e && !strcmp(e, "0"));
		ms = getenv("SPOOL_GDBSRV_CHECKPOINT_MS");
		s->ckpt_ns = (ms && *ms ? strtoull(ms, NULL, 10) : 100) * 1000000ull;
		/* the recording's snapshots: going back may start from one */
		e = getenv("SPOOL_GDBSRV_SNAPSHOTS");
		if (!(e && !strcmp(e, "0")) && rr_snap_turns(trace, &s->snaps, &s->nsnaps) < 0)
			s->nsnaps = 0;
	}
	/* from here on, gdb leaving ends spool even while it waits for the
	 * replay (a search of reverse-continue, a session) */
	s->inf.watch_in = s->rsp.in;
	s->inf.watch_out = s->rsp.out;
	if (gdbsrv_inf_start(&s->inf) < 0) {
		/* The replay said why on stderr, which gdb shows only when it
		 * reads from its pipe. Leaving at once, gdb's first packet met
		 * a closed pipe ("Broken pipe") and gdb never read the reason
		 * (tests/integ/255, 3 runs in 32 under load): gdb's first
		 * packet is read first; gdb, waiting for its answer, reads the
		 * reason, then the end of the pipe. */
		if (!strcmp(where, "-"))
			(void)gdbsrv_rsp_get(&s->rsp);
		goto out_rm;
	}
	s->replays = 1;
	s->vpid = (uint64_t)s->inf.pid;
	s->last.kind = GDBSRV_STOP_START;
	s->last.vidx = s->inf.start_vidx;
	s->last.tid = s->inf.pid;
	if (s->inf.nth) {
		struct gdbsrv_thread *t = gdbsrv_inf_vthread(&s->inf, s->inf.start_vidx);

		s->last.tid = t ? t->tid : s->last.tid;
	}
	s->start_st = s->last;
	for (;;) {
		int r = gdbsrv_rsp_get(&s->rsp);

		if (r < 0)
			break;
		r = dispatch(s);
		if (r != 0)
			break;
	}
	rc = 0;
	/* spool's own end: the waits below are bounded */
	s->inf.watch_in = s->inf.watch_out = -1;
	gdbsrv_ckpt_drop_all(s);
	gdbsrv_inf_kill(&s->inf);
out_rm:
	nftw(s->inf.tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
out_free:
	if (s->inf.env)
		run_env_free(s->inf.env);
	gdbsrv_pos_free(&s->hist);
	free(s->snaps);
	free(s);
	return rc;
}
