// SPDX-License-Identifier: MIT
/*
 * gdbsrv_rsp.c - the packet layer of the GDB remote serial protocol for
 * `spool replay --gdbserver`: $data#cs framing, acknowledgements until gdb
 * asks for QStartNoAckMode, binary escapes ('}' x ^ 0x20) on output, and
 * the out-of-band interrupt byte 0x03. gdb is the only peer; what it sends
 * is bounded by GDBSRV_PKT_MAX (the PacketSize spool advertises).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gdbsrv_int.h"

static int rsp_byte(struct gdbsrv_rsp *r, int wait)
{
	ssize_t n;

	if (r->rpos < r->rlen)
		return r->rbuf[r->rpos++];
	if (!wait) {
		struct pollfd p = {.fd = r->in, .events = POLLIN};

		if (poll(&p, 1, 0) <= 0)
			return -EAGAIN;
	}
	do
		n = read(r->in, r->rbuf, sizeof(r->rbuf));
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -EPIPE;
	r->rlen = (size_t)n;
	r->rpos = 0;
	return r->rbuf[r->rpos++];
}

static int rsp_write(struct gdbsrv_rsp *r, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(r->out, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int gdbsrv_rsp_get(struct gdbsrv_rsp *r)
{
	for (;;) {
		int c, sum = 0, cs;

		do {
			c = rsp_byte(r, 1);
			if (c < 0)
				return c;
			if (c == 0x03) {
				r->buf[0] = 0x03;
				r->buf[1] = 0;
				r->len = 1;
				return 0;
			}
		} while (c != '$');
		r->len = 0;
		for (;;) {
			c = rsp_byte(r, 1);
			if (c < 0)
				return c;
			if (c == '#')
				break;
			sum += c;
			if (r->len < GDBSRV_PKT_MAX)
				r->buf[r->len++] = (char)c;
		}
		r->buf[r->len] = 0;
		c = rsp_byte(r, 1);
		cs = rsp_byte(r, 1);
		if (c < 0 || cs < 0)
			return -EPIPE;
		if (r->noack)
			return 0;
		if (hexval(c) * 16 + hexval(cs) == (sum & 0xff)) {
			if (rsp_write(r, "+", 1) < 0)
				return -EPIPE;
			return 0;
		}
		if (rsp_write(r, "-", 1) < 0)
			return -EPIPE;
	}
}

int gdbsrv_rsp_put(struct gdbsrv_rsp *r, const char *data, size_t len)
{
	static char out[2 * GDBSRV_PKT_MAX + 8];
	size_t o = 0;
	unsigned sum = 0;

	out[o++] = '$';
	for (size_t i = 0; i < len && o < sizeof(out) - 4; i++) {
		unsigned char c = (unsigned char)data[i];

		if (c == '$' || c == '#' || c == '}' || c == '*') {
			out[o++] = '}';
			sum += '}';
			c ^= 0x20;
		}
		out[o++] = (char)c;
		sum += c;
	}
	o += (size_t)snprintf(out + o, 4, "#%02x", sum & 0xff);
	for (int tries = 0;; tries++) {
		int c;

		if (rsp_write(r, out, o) < 0)
			return -EPIPE;
		if (r->noack)
			return 0;
		do
			c = rsp_byte(r, 1);
		while (c >= 0 && c != '+' && c != '-');
		if (c < 0)
			return c;
		if (c == '+' || tries > 10)
			return 0;
	}
}

int gdbsrv_rsp_puts(struct gdbsrv_rsp *r, const char *s)
{
	return gdbsrv_rsp_put(r, s, strlen(s));
}

int gdbsrv_rsp_poll_intr(struct gdbsrv_rsp *r)
{
	int c;

	while ((c = rsp_byte(r, 0)) >= 0)
		if (c == 0x03)
			return 1;
	return c == -EPIPE ? -EPIPE : 0;
}

static int rsp_int_pipe[2] = {-1, -1};

static void rsp_on_sigint(int sig)
{
	int saved = errno;
	char c = 1;

	(void)sig;
	if (write(rsp_int_pipe[1], &c, 1) < 0) {
		/* full: a SIGINT is already waiting */
	}
	errno = saved;
}

int gdbsrv_rsp_sigint_init(void)
{
	struct sigaction sa;

	if (rsp_int_pipe[0] < 0 && pipe2(rsp_int_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rsp_on_sigint;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0)
		return -errno;
	/* a SIGINT blocked where spool was started (a CI harness, a
	 * daemon's child) would never reach the handler: ^C must stop the
	 * replay wherever gdb runs (the program's own mask is set apart, in
	 * the child that execs it) */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	if (sigprocmask(SIG_UNBLOCK, &sa.sa_mask, NULL) < 0)
		return -errno;
	return 0;
}

int gdbsrv_rsp_sigint_fd(void)
{
	return rsp_int_pipe[0];
}

int gdbsrv_rsp_sigint_take(void)
{
	char b[64];
	int got = 0;

	if (rsp_int_pipe[0] < 0)
		return 0;
	while (read(rsp_int_pipe[0], b, sizeof(b)) > 0)
		got = 1;
	return got;
}

void gdbsrv_hex(char *out, const void *data, size_t len)
{
	static const char d[] = "0123456789abcdef";
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * len] = 0;
}

int gdbsrv_unhex(void *out, const char *in, size_t len)
{
	unsigned char *o = out;

	for (size_t i = 0; i < len; i++) {
		int h = hexval(in[2 * i]), l = h < 0 ? -1 : hexval(in[2 * i + 1]);

		if (h < 0 || l < 0)
			return -EINVAL;
		o[i] = (unsigned char)(h * 16 + l);
	}
	return 0;
}
