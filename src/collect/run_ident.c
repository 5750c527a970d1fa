// SPDX-License-Identifier: MIT
/*
 * run_ident.c - the personality, umask and resource limits a recorded
 * program ran with: taken at record time, kept in the record side file and
 * given back to its replays (see run_ident.h for why).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run_ident.h"

static const char *const run_ident_names[RUN_IDENT_NLIMITS] = {
    "cpu",     "fsize", "data",	 "stack",      "core",	   "rss",  "nproc",  "nofile",
    "memlock", "as",	"locks", "sigpending", "msgqueue", "nice", "rtprio", "rttime",
};

const char *run_ident_limit_name(int r)
{
	return r >= 0 && r < RUN_IDENT_NLIMITS ? run_ident_names[r] : NULL;
}

/*
 * The signals a mask or a disposition of the program can name: 1 to 64 but
 * SIGKILL and SIGSTOP (never blocked nor ignored) and 32 and 33, glibc's own
 * (its sigprocmask and sigaction hide them from everyone).
 */
static int run_ident_sig_ok(int sig)
{
	return sig >= 1 && sig <= 64 && sig != SIGKILL && sig != SIGSTOP && sig != 32 &&
	       sig != 33;
}

static uint64_t run_ident_sig_mask_ok(void)
{
	uint64_t m = 0;

	for (int s = 1; s <= 64; s++)
		if (run_ident_sig_ok(s))
			m |= 1ull << (s - 1);
	return m;
}

/* The calling thread's blocked and ignored signals. */
static void run_ident_sigs_now(uint64_t *blocked, uint64_t *ignored)
{
	sigset_t m;

	*blocked = *ignored = 0;
	sigemptyset(&m);
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	for (int s = 1; s <= 64; s++) {
		struct sigaction sa;

		if (!run_ident_sig_ok(s))
			continue;
		if (sigismember(&m, s) == 1)
			*blocked |= 1ull << (s - 1);
		if (sigaction(s, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
		    sa.sa_handler == SIG_IGN)
			*ignored |= 1ull << (s - 1);
	}
}

void run_ident_for_record(struct run_ident *id)
{
	int cur = personality(0xffffffff);
	mode_t m = umask(022);

	umask(m);
	memset(id, 0, sizeof(*id));
	id->persona_set = 1;
	id->persona = (cur < 0 ? 0 : (unsigned long)cur) | ADDR_NO_RANDOMIZE;
	id->umask_set = 1;
	id->umask = (unsigned)m & 0777;
	for (int r = 0; r < RUN_IDENT_NLIMITS; r++)
		if (getrlimit(r, &id->rlim[r]) == 0)
			id->rlim_set |= 1u << r;
	id->sig_set = RUN_IDENT_SIG_BOTH;
	run_ident_sigs_now(&id->sig_blocked, &id->sig_ignored);
}

int run_ident_sigs_differ(const struct run_ident *id, const sigset_t *own,
			  const sigset_t *own_ign)
{
	uint64_t blocked, ignored;

	if (id->sig_set != RUN_IDENT_SIG_BOTH)
		return 0;
	run_ident_sigs_now(&blocked, &ignored);
	for (int s = 1; s <= 64; s++) {
		uint64_t b = 1ull << (s - 1);

		if (!run_ident_sig_ok(s) || sigismember(own, s) != 1)
			continue;
		ignored = (ignored & ~b) | (sigismember(own_ign, s) == 1 ? b : 0);
	}
	return blocked != id->sig_blocked || ignored != id->sig_ignored;
}

void run_ident_sig_names(uint64_t set, char *buf, size_t len)
{
	size_t k = 0;

	if (!len)
		return;
	buf[0] = 0;
	if (set && set == run_ident_sig_mask_ok()) {
		snprintf(buf, len, "all");
		return;
	}
	for (int s = 1; s <= 64 && k + 16 < len; s++) {
		const char *n = sigabbrev_np(s);
		int w;

		if (!(set & (1ull << (s - 1))))
			continue;
		if (n)
			w = snprintf(buf + k, len - k, "%s%s", k ? "," : "", n);
		else
			w = snprintf(buf + k, len - k, "%sRT%d", k ? "," : "", s - SIGRTMIN);
		k += w > 0 ? (size_t)w : 0;
	}
	if (!k)
		snprintf(buf, len, "none");
}

static void run_ident_put_lim(FILE *f, rlim_t v)
{
	if (v == RLIM_INFINITY)
		fputs("unlimited", f);
	else
		fprintf(f, "%llu", (unsigned long long)v);
}

void run_ident_format(const struct run_ident *id, FILE *f)
{
	if (id->persona_set)
		fprintf(f, "personality=0x%lx\n", id->persona);
	fprintf(f, "aslr=%s\n", id->aslr ? "on" : "off");
	if (id->aslr_err)
		fprintf(f, "aslr_error=%d\n", id->aslr_err);
	if (id->umask_set)
		fprintf(f, "umask=%03o\n", id->umask);
	if (id->sig_set == RUN_IDENT_SIG_BOTH)
		fprintf(f, "sig_blocked=0x%" PRIx64 "\nsig_ignored=0x%" PRIx64 "\n",
			id->sig_blocked, id->sig_ignored);
	for (int r = 0; r < RUN_IDENT_NLIMITS; r++) {
		if (!(id->rlim_set & (1u << r)))
			continue;
		fprintf(f, "rlimit_%s=", run_ident_names[r]);
		run_ident_put_lim(f, id->rlim[r].rlim_cur);
		fputc(':', f);
		run_ident_put_lim(f, id->rlim[r].rlim_max);
		fputc('\n', f);
	}
}

/* "unlimited" or a decimal number; -1 when it is neither. */
static int run_ident_get_lim(const char *s, const char **end, rlim_t *v)
{
	char *e;
	unsigned long long n;

	if (!strncmp(s, "unlimited", 9)) {
		*v = RLIM_INFINITY;
		*end = s + 9;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &e, 10);
	if (errno)
		return -1;
	*v = (rlim_t)n;
	*end = e;
	return 0;
}

int run_ident_parse(struct run_ident *id, const char *key, const char *val)
{
	char *e;

	if (!strcmp(key, "personality")) {
		unsigned long v = strtoul(val, &e, 0);

		if (*e || v > 0xffffffffu)
			return 1;
		id->persona = v;
		id->persona_set = 1;
		return 1;
	}
	if (!strcmp(key, "aslr")) {
		id->aslr = !strcmp(val, "on");
		return 1;
	}
	if (!strcmp(key, "aslr_error")) {
		id->aslr_err = atoi(val);
		return 1;
	}
	if (!strcmp(key, "umask")) {
		unsigned long v = strtoul(val, &e, 8);

		if (!*e && v <= 0777) {
			id->umask = (unsigned)v;
			id->umask_set = 1;
		}
		return 1;
	}
	if (!strcmp(key, "sig_blocked") || !strcmp(key, "sig_ignored")) {
		unsigned long long v;

		errno = 0;
		v = strtoull(val, &e, 16);
		if (*e || errno)
			return 1;
		/* (a trace is untrusted: only signals that can be blocked or
		 * ignored; a recording with one of the two lines only has no
		 * signal state) */
		v &= run_ident_sig_mask_ok();
		if (key[4] == 'b')
			id->sig_blocked = v;
		else
			id->sig_ignored = v;
		id->sig_set |= key[4] == 'b' ? RUN_IDENT_SIG_BLOCKED : RUN_IDENT_SIG_IGNORED;
		return 1;
	}
	if (!strncmp(key, "rlimit_", 7)) {
		for (int r = 0; r < RUN_IDENT_NLIMITS; r++) {
			const char *p;
			rlim_t cur, max;

			if (strcmp(key + 7, run_ident_names[r]))
				continue;
			if (run_ident_get_lim(val, &p, &cur) < 0 || *p != ':' ||
			    run_ident_get_lim(p + 1, &p, &max) < 0 || *p || cur > max)
				return 1;
			id->rlim[r].rlim_cur = cur;
			id->rlim[r].rlim_max = max;
			id->rlim_set |= 1u << r;
			return 1;
		}
		return 1; /* a limit this spool does not know: ignored */
	}
	return 0;
}

int run_ident_limits_differ(const struct run_ident *id)
{
	for (int r = 0; r < RUN_IDENT_NLIMITS; r++) {
		struct rlimit now;

		if (!(id->rlim_set & (1u << r)))
			continue;
		if (getrlimit(r, &now) < 0 || now.rlim_cur != id->rlim[r].rlim_cur ||
		    now.rlim_max != id->rlim[r].rlim_max)
			return 1;
	}
	return 0;
}

int run_ident_limits_unreachable(const struct run_ident *id, char *buf, size_t len)
{
	size_t k = 0;
	int n = 0;

	if (len)
		buf[0] = 0;
	for (int r = 0; r < RUN_IDENT_NLIMITS; r++) {
		struct rlimit now;
		rlim_t want;

		if (!(id->rlim_set & (1u << r)) || getrlimit(r, &now) < 0)
			continue;
		want = id->rlim[r].rlim_max;
		if (now.rlim_max == RLIM_INFINITY ||
		    (want != RLIM_INFINITY && want <= now.rlim_max))
			continue;
		if (geteuid() == 0)
			continue; /* root may raise a hard limit */
		n++;
		if (k + 64 < len) {
			int w =
			    snprintf(buf + k, len - k, "%s%s ", k ? ", " : "", run_ident_names[r]);

			k += w > 0 ? (size_t)w : 0;
			if (want == RLIM_INFINITY)
				k += (size_t)snprintf(buf + k, len - k, "unlimited");
			else
				k += (size_t)snprintf(buf + k, len - k, "%llu",
						      (unsigned long long)want);
			k += (size_t)snprintf(buf + k, len - k, " > %llu",
					      (unsigned long long)now.rlim_max);
		}
	}
	return n;
}

unsigned long run_ident_trust_persona(struct run_ident *id)
{
	const unsigned long safe = ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT | UNAME26;
	int own = personality(0xffffffff);
	unsigned long mine = own < 0 ? 0 : (unsigned long)(unsigned)own;
	unsigned long dropped = id->persona & ~safe & ~mine;

	if (id->persona_set)
		id->persona = (mine & ~safe) | (id->persona & safe);
	return id->persona_set ? dropped : 0;
}

void run_ident_apply_child(const struct run_ident *id)
{
	if (id->umask_set)
		umask((mode_t)id->umask);
	for (int r = 0; r < RUN_IDENT_NLIMITS; r++) {
		struct rlimit want = id->rlim[r], now;

		if (!(id->rlim_set & (1u << r)))
			continue;
		if (setrlimit(r, &want) == 0 || getrlimit(r, &now) < 0)
			continue;
		/* a hard limit above ours: as close as we may */
		if (now.rlim_max != RLIM_INFINITY &&
		    (want.rlim_max == RLIM_INFINITY || want.rlim_max > now.rlim_max))
			want.rlim_max = now.rlim_max;
		if (want.rlim_cur == RLIM_INFINITY || want.rlim_cur > want.rlim_max)
			want.rlim_cur = want.rlim_max;
		(void)setrlimit(r, &want);
	}
	if (id->persona_set)
		(void)personality(id->persona);
}

void run_ident_apply_sigs_child(const struct run_ident *id)
{
	if (id->sig_set == RUN_IDENT_SIG_BOTH) {
		sigset_t m;

		/* ignored as recorded, the others not: one ignored by the
		 * replaying spool (nohup spool replay) is not the recording's.
		 * A caught one needs nothing: exec resets it. */
		for (int s = 1; s <= 64; s++) {
			struct sigaction sa;

			if (!run_ident_sig_ok(s))
				continue;
			if (id->sig_ignored & (1ull << (s - 1)))
				(void)signal(s, SIG_IGN);
			else if (sigaction(s, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
				 sa.sa_handler == SIG_IGN)
				(void)signal(s, SIG_DFL);
		}
		/* last: nothing above may be held up by it */
		sigemptyset(&m);
		for (int s = 1; s <= 64; s++)
			if (id->sig_blocked & (1ull << (s - 1)))
				sigaddset(&m, s);
		(void)sigprocmask(SIG_SETMASK, &m, NULL);
	}
}

int run_ident_fixed_layout(unsigned long p)
{
	char c = '2';
	int fd;

	if (p & ADDR_NO_RANDOMIZE)
		return 1;
	fd = open("/proc/sys/kernel/randomize_va_space", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '2';
		close(fd);
	}
	return c == '0';
}
