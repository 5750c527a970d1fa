// SPDX-License-Identifier: MIT
/*
 * lockname.c - the one name of a lock every command shows (lockname.h says
 * which and why): the lock report, `spool path`, the exports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../common/event.h"
#include "../util/symbolize.h"
#include "lockname.h"

const char *lockname_type(uint32_t type)
{
	static const char *const names[] = {
	    [LOCK_TYPE_MUTEX] = "mutex",   [LOCK_TYPE_RWLOCK] = "rwlock", [LOCK_TYPE_SPIN] = "spin",
	    [LOCK_TYPE_SEM] = "sem",	   [LOCK_TYPE_COND] = "cond",	  [LOCK_TYPE_BARRIER] = "barrier",
	    [LOCK_TYPE_THREAD] = "thread", [LOCK_TYPE_FUTEX] = "futex",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "lock";
}

/* The length of a site without its " (file.c:12)" trailer: the last " ("
 * of a string that ends with ")" (a demangled function's own parameter
 * list follows its name without a space). */
static size_t site_fn_len(const char *site)
{
	size_t n = strlen(site);
	const char *p = NULL;

	if (!n || site[n - 1] != ')')
		return n;
	for (const char *q = strstr(site, " ("); q; q = strstr(q + 1, " ("))
		p = q;
	return p ? (size_t)(p - site) : n;
}

/* Whether a site's trailer is a file and line, " (file.c:12)", not the
 * module symbolizer_format names where the binary has no line table
 * (" (libglib-2.0.so.0)"): ":" and digits before the closing ")". */
static int site_has_line(const char *site)
{
	size_t fn = site_fn_len(site), n = strlen(site), k = n - 1;

	if (fn == n)
		return 0;
	while (k > fn && site[k - 1] >= '0' && site[k - 1] <= '9')
		k--;
	return k < n - 1 && k > fn + 3 && site[k - 1] == ':';
}

const char *lockname_format(const struct lockname_src *l, const struct lockname_syms *s,
			    char *buf, size_t len)
{
	char site[512];

	if (l->defined && l->addr && s && s->data &&
	    s->data(s->ctx, l->pid, l->addr, buf, len) == 0 && buf[0])
		return buf;
	if (l->init_ip && s && s->site &&
	    s->site(s->ctx, l->pid, l->init_ip, site, sizeof(site)) == 0 && site[0]) {
		snprintf(buf, len, "%.*s#%" PRIu32, (int)site_fn_len(site), site, l->index);
		return buf;
	}
	snprintf(buf, len, "%s#%" PRIu32, lockname_type(l->type), l->index);
	return buf;
}

int lockname_init_site(const struct lockname_src *l, const struct lockname_syms *s, char *buf,
			size_t len)
{
	char tmp[512];

	/* the same choice lockname_format makes: a lock that has a variable
	 * is named by it, whatever its init site */
	if (l->defined && l->addr && s && s->data &&
	    s->data(s->ctx, l->pid, l->addr, tmp, sizeof(tmp)) == 0 && tmp[0])
		return -ENOENT;
	if (!l->init_ip || !s || !s->site || s->site(s->ctx, l->pid, l->init_ip, buf, len) < 0 ||
	    !buf[0])
		return -ENOENT;
	return site_has_line(buf) ? 0 : -ENOENT;
}

int lockname_sym_data(void *symbolizer, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	struct sym_info si;

	if (!symbolizer || symbolizer_lookup(symbolizer, pid, addr, &si) < 0 || !si.func[0])
		return -ENOENT;
	if (si.offset)
		snprintf(buf, len, "%s+%#" PRIx64, si.func, si.offset);
	else
		snprintf(buf, len, "%s", si.func);
	return 0;
}

int lockname_sym_site(void *symbolizer, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	/* recorded addresses are return addresses: symbolizer_format looks up
	 * addr - 1. It never fails but falls back to "0x..." itself. */
	if (!symbolizer)
		return -ENOENT;
	symbolizer_format(symbolizer, pid, addr, buf, len);
	return buf[0] && strncmp(buf, "0x", 2) ? 0 : -ENOENT;
}
