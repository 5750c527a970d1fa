// SPDX-License-Identifier: MIT
/*
 * probe_userlib.c - the user's half of the probe library: probes defined by
 * a shared object of custom handlers (spool probe --handler SO,
 * include/spool/probe.h), stored so that later runs name them.
 *
 * The library is a directory: $XDG_CONFIG_HOME/spool/probes, else
 * ~/.config/spool/probes. Each probe is two files there: NAME.so, a copy of
 * the shared object, and NAME.probe, its definition (text, "# " comments):
 *
 *	name NAME
 *	object NAME.so
 *	handlers pre,post,error      (the ones the object exports)
 *	from /abs/path/of/the/original.so
 *
 * --handler with a path to a shared object that exports at least one of
 * spool_probe_pre, spool_probe_post, spool_probe_error defines the probe
 * NAME (the file's name without ".so") and stores it when it is not there,
 * or replaces it when the object changed (said so). --handler NAME (no
 * '/', no such file) uses the stored one. The files are written beside
 * their destination and renamed (util/outfile.h); what is read from the
 * directory is bounded and checked: an object name is a plain file name
 * in the directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/log.h"
#include "../util/outfile.h"
#include "probe.h"

#define UL_MAX_OBJECT (256u << 20) /* a handler object larger than this is refused */
#define UL_MAX_DEF 4096

enum { UL_PRE = 1, UL_POST = 2, UL_ERROR = 4 };

int probe_userlib_dir(char *buf, size_t len)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int n;

	if (x && x[0] == '/')
		n = snprintf(buf, len, "%s/spool/probes", x);
	else if (h && h[0] == '/')
		n = snprintf(buf, len, "%s/.config/spool/probes", h);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int ul_name_ok(const char *n)
{
	size_t i;

	if (!n[0] || n[0] == '.' || strlen(n) > 64)
		return 0;
	for (i = 0; n[i]; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= 'A' && n[i] <= 'Z') ||
		      (n[i] >= '0' && n[i] <= '9') || n[i] == '_' || n[i] == '-' || n[i] == '.'))
			return 0;
	return 1;
}

/* mkdir -p of the library directory (its parents 0755, itself 0755). */
static int ul_mkdirs(const char *dir)
{
	char p[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++)
		if (p[i] == '/' || !p[i]) {
			char c = p[i];

			p[i] = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -errno;
			p[i] = c;
		}
	return 0;
}

/* Which of the three handlers the shared object at fd exports (UL_*), from
 * its .dynsym: defined functions only. */
static int ul_exports(int fd, unsigned *mask)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int rc = -ENOEXEC;

	*mask = 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return -ENOEXEC;
	if (!gelf_getehdr(e, &eh) || eh.e_type != ET_DYN || eh.e_machine != EM_X86_64)
		goto out;
	rc = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (!n)
				continue;
			if (!strcmp(n, "spool_probe_pre"))
				*mask |= UL_PRE;
			else if (!strcmp(n, "spool_probe_post"))
				*mask |= UL_POST;
			else if (!strcmp(n, "spool_probe_error"))
				*mask |= UL_ERROR;
		}
	}
out:
	elf_end(e);
	return rc;
}

/* The whole of a regular file, at most max bytes (malloc'ed). */
static int ul_read(const char *path, size_t max, char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t got = 0;
	int rc = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		rc = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	if (rc) {
		free(*buf);
		*buf = NULL;
		goto out;
	}
	(*buf)[got] = 0;
	*len = got;
out:
	close(fd);
	return rc;
}

static int ul_write(const char *path, const void *data, size_t len, mode_t mode)
{
	struct outfile of;
	int rc = outfile_open(&of, path, mode, 0);

	if (rc < 0)
		return rc;
	if (len && fwrite(data, 1, len, of.f) != len) {
		outfile_abort(&of);
		return -EIO;
	}
	return outfile_commit(&of);
}

static void ul_handlers_text(unsigned mask, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", mask & UL_PRE ? "pre" : "",
		 (mask & UL_PRE) && (mask & (UL_POST | UL_ERROR)) ? "," : "",
		 mask & UL_POST ? "post" : "", (mask & UL_POST) && (mask & UL_ERROR) ? "," : "",
		 mask & UL_ERROR ? "error" : "");
}

int probe_userlib_add(const char *so, char *name, size_t nlen)
{
	char dir[PATH_MAX], dest[PATH_MAX + 80], def[PATH_MAX + 80], hs[32], text[UL_MAX_DEF];
	const char *base = strrchr(so, '/');
	char *obj = NULL, *old = NULL;
	size_t olen = 0, oldlen = 0;
	unsigned mask = 0;
	int fd, rc, existed;

	base = base ? base + 1 : so;
	snprintf(name, nlen, "%s", base);
	if (strlen(name) > 3 && !strcmp(name + strlen(name) - 3, ".so"))
		name[strlen(name) - 3] = 0;
	if (!ul_name_ok(name))
		return -EINVAL;
	fd = open(so, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = ul_exports(fd, &mask);
	close(fd);
	if (rc || !mask)
		return -ENOEXEC; /* not a handler object: nothing to store */
	rc = probe_userlib_dir(dir, sizeof(dir));
	if (rc)
		return rc;
	rc = ul_read(so, UL_MAX_OBJECT, &obj, &olen);
	if (rc)
		return rc;
	snprintf(dest, sizeof(dest), "%s/%s.so", dir, name);
	snprintf(def, sizeof(def), "%s/%s.probe", dir, name);
	existed = !ul_read(dest, UL_MAX_OBJECT, &old, &oldlen);
	if (existed && oldlen == olen && !memcmp(old, obj, olen) && access(def, R_OK) == 0) {
		rc = 0; /* already there, the same object */
		goto out;
	}
	ul_handlers_text(mask, hs, sizeof(hs));
	snprintf(text, sizeof(text),
		 "# spool probe library entry, written by spool probe --handler\n"
		 "name %s\nobject %s.so\nhandlers %s\nfrom %s\n",
		 name, name, hs, so);
	rc = ul_mkdirs(dir);
	if (!rc)
		rc = ul_write(dest, obj, olen, 0755);
	if (!rc)
		rc = ul_write(def, text, strlen(text), 0644);
	if (!rc)
		rc = existed ? 2 : 1;
out:
	free(obj);
	free(old);
	return rc;
}

/* The value of key in a definition's text ("key value" lines). */
static int ul_field(const char *text, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (n > kl && !strncmp(l, key, kl) && l[kl] == ' ') {
			n -= kl + 1;
			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(out, l + kl + 1, n);
			out[n] = 0;
			return 0;
		}
	}
	return -ENOENT;
}

int probe_userlib_find(const char *name, char *path, size_t len)
{
	char dir[PATH_MAX], def[PATH_MAX + 80], object[128];
	char *text;
	size_t tl;
	struct stat st;
	int rc;

	if (!ul_name_ok(name))
		return -EINVAL;
	rc = probe_userlib_dir(dir, sizeof(dir));
	if (rc)
		return rc;
	snprintf(def, sizeof(def), "%s/%s.probe", dir, name);
	rc = ul_read(def, UL_MAX_DEF, &text, &tl);
	if (rc)
		return rc;
	rc = ul_field(text, "object", object, sizeof(object));
	free(text);
	if (rc || !ul_name_ok(object))
		return -EINVAL; /* an object is a plain file of the directory */
	if ((size_t)snprintf(path, len, "%s/%s", dir, object) >= len)
		return -ENAMETOOLONG;
	if (lstat(path, &st) < 0)
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

static int ul_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void probe_userlib_list(FILE *out)
{
	char dir[PATH_MAX];
	const struct probe_lib_entry *e;
	char **names = NULL;
	size_t n = 0;
	DIR *d;

	fprintf(out, "standard probes:\n");
	for (unsigned i = 0; (e = probe_lib_at(i)); i++)
		fprintf(out, "  %-16s %s\n", e->name, e->records);
	if (probe_userlib_dir(dir, sizeof(dir))) {
		fprintf(out, "user probes: none (no HOME or XDG_CONFIG_HOME)\n");
		return;
	}
	d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (l <= 6 || strcmp(de->d_name + l - 6, ".probe"))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn)
			break;
		names = nn;
		names[n] = strndup(de->d_name, l - 6);
		if (names[n])
			n++;
	}
	if (d)
		closedir(d);
	fprintf(out, "user probes (%s, added by --handler SO, used by --handler NAME):%s\n", dir,
		n ? "" : " none");
	if (n)
		qsort(names, n, sizeof(*names), ul_cmp);
	for (size_t i = 0; i < n; i++) {
		char def[PATH_MAX + 80], hs[64] = "?", from[PATH_MAX] = "?", obj[PATH_MAX];
		char *text;
		size_t tl;

		snprintf(def, sizeof(def), "%s/%s.probe", dir, names[i]);
		if (ul_name_ok(names[i]) && !ul_read(def, UL_MAX_DEF, &text, &tl)) {
			ul_field(text, "handlers", hs, sizeof(hs));
			ul_field(text, "from", from, sizeof(from));
			free(text);
		}
		fprintf(out, "  %-16s handlers %-16s %s (from %s)\n", names[i], hs,
			probe_userlib_find(names[i], obj, sizeof(obj)) ? "object missing" : obj,
			from);
		free(names[i]);
	}
	free(names);
}
