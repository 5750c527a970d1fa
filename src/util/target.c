// SPDX-License-Identifier: MIT
/*
 * target.c - resolving and classifying the program to run.
 *
 * A statically linked program never calls the dynamic linker, so the agent
 * would never be loaded and the run would produce an empty trace. That is
 * the kind of silent nothing spool must not produce, so it is detected here
 * from the ELF program headers (no PT_INTERP) and refused with the reason.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target.h"

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

int target_resolve(const char *name, char *path, size_t len)
{
	const char *env, *p, *end;
	int err = -ENOENT, rc;

	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if ((size_t)snprintf(path, len, "%s", name) >= len)
			return -ENAMETOOLONG;
		return check_exec(path);
	}
	env = getenv("PATH");
	if (!env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (p = env;; p = end + 1) {
		size_t dl;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dl = (size_t)(end - p);
		if ((size_t)snprintf(path, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "", name) < len) {
			rc = check_exec(path);
			if (rc == 0)
				return 0;
			/* Keep looking, but remember that something was there. */
			if (rc == -EACCES)
				err = -EACCES;
		}
		if (!*end)
			break;
	}
	return err;
}

int target_classify(const char *path)
{
	Elf64_Ehdr eh;
	struct stat st;
	int fd, ret = TARGET_UNKNOWN;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		ret = TARGET_SETID;
		goto out_close;
	}
	n = pread(fd, &eh, sizeof(eh), 0);
	if (n >= 2 && ((char *)&eh)[0] == '#' && ((char *)&eh)[1] == '!') {
		ret = TARGET_SCRIPT;
		goto out_close;
	}
	if (n < (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		goto out_close;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
		/* 32-bit programs would need a 32-bit agent. Let exec decide; the
		 * agent simply will not load. */
		goto out_close;
	}
#if defined(__x86_64__)
	if (eh.e_machine != EM_X86_64) {
#elif defined(__aarch64__)
	if (eh.e_machine != EM_AARCH64) {
#else
	if (0) {
#endif
		ret = TARGET_FOREIGN;
		goto out_close;
	}
	ret = TARGET_STATIC;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP) {
			ret = TARGET_DYNAMIC;
			break;
		}
	}
out_close:
	close(fd);
	return ret;
}

int target_interp(const char *path, char *buf, size_t len)
{
	/* the kernel reads at most this much of the #! line (BINPRM_BUF_SIZE) */
	char line[256];
	size_t a = 2, b;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, line, sizeof(line) - 1, 0);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return -ENOEXEC;
	line[n] = 0;
	while (line[a] == ' ' || line[a] == '\t')
		a++;
	for (b = a; line[b] && line[b] != ' ' && line[b] != '\t' && line[b] != '\n'; b++)
		;
	if (b == a)
		return -ENOEXEC;
	if (b - a >= len)
		return -ENAMETOOLONG;
	memcpy(buf, line + a, b - a);
	buf[b - a] = 0;
	return 0;
}

int target_image(const char *path, char *buf, size_t len)
{
	char interp[PATH_MAX];

	if (strlen(path) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (int k = 0; k < TARGET_INTERP_DEPTH; k++) {
		if (target_interp(buf, interp, sizeof(interp)) < 0)
			break;
		if (strlen(interp) >= len)
			return -ENAMETOOLONG;
		strcpy(buf, interp);
	}
	return 0;
}

const char *target_unreadable_why(const char *path, int err, char *buf, size_t len)
{
	char interp[256];

	if (err == -ENOEXEC && !target_interp(path, interp, sizeof(interp)))
		snprintf(buf, len,
			 "it is a #! script run by %s; spool reads a program's own code: give it "
			 "the program the script runs (or %s itself)",
			 interp, interp);
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}
