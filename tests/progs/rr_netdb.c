// SPDX-License-Identifier: MIT
/*
 * rr_netdb.c - what glibc looks up or walks inside itself, for record and
 * replay (tests/integ/175-178). Modes:
 *   hosts      gethostbyname, gethostbyname2, gethostbyaddr and their _r
 *              forms (one with a buffer too small), getservbyname,
 *              getservbyport and their _r forms, a name that does not exist
 *              (glibc asks DNS), from two threads; the first 3 entries of
 *              getservent, every entry of gethostent_r
 *   res        res_query, res_search, res_mkquery of a name (the resolver:
 *              DNS), then gethostbyname of it
 *   fds FILE   descriptors glibc makes inside itself, in one thread (popen
 *              and pclose, freopen, tmpfile, gethostbyname, getservbyname)
 *              while another opens, reads and closes FILE: each thread notes
 *              the descriptor numbers it saw and what it read, printed after
 *              both ended (sync mode orders them like any other open)
 *   lookups FILE   gethostbyname and getservbyname in one thread while
 *              another opens and closes FILE, 300 times each, at once:
 *              the numbers the opens got (a lookup's own descriptors,
 *              inside glibc, take a turn of the table too)
 *   walk DIR   nftw (FTW_PHYS, then FTW_DEPTH with FTW_ACTIONRETVAL skipping
 *              a subtree, then FTW_CHDIR opening each file by its base name),
 *              ftw, scandirat of DIR; prints every entry and what it read
 * Everything printed is what the calls returned, so a replay that does not
 * return the recorded results prints something else.
 */
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netdb.h>
#include <pthread.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void show_host(const char *what, const struct hostent *h, int herr)
{
	char a[INET6_ADDRSTRLEN];

	if (!h) {
		printf("%s: none (h_errno %d)\n", what, herr);
		return;
	}
	printf("%s: name %s type %d len %d", what, h->h_name, h->h_addrtype, h->h_length);
	for (char **p = h->h_aliases; p && *p; p++)
		printf(" alias %s", *p);
	for (char **p = h->h_addr_list; p && *p; p++)
		printf(" addr %s", inet_ntop(h->h_addrtype, *p, a, sizeof(a)) ? a : "?");
	printf("\n");
}

static void show_serv(const char *what, const struct servent *s)
{
	if (!s) {
		printf("%s: none\n", what);
		return;
	}
	printf("%s: %s %d/%s", what, s->s_name, ntohs((uint16_t)s->s_port), s->s_proto);
	for (char **p = s->s_aliases; p && *p; p++)
		printf(" alias %s", *p);
	printf("\n");
}

static void *hosts_thread(void *arg)
{
	struct hostent he, *r = NULL;
	char buf[2048];
	int herr = 0, rc;

	rc = gethostbyname2_r((const char *)arg, AF_INET, &he, buf, sizeof(buf), &r, &herr);
	printf("thread gethostbyname2_r: rc %d\n", rc);
	show_host("thread gethostbyname2_r", r, herr);
	return NULL;
}

static int run_hosts(void)
{
	struct in_addr lo = {htonl(INADDR_LOOPBACK)};
	struct hostent he, *h, *r = NULL;
	struct servent se, *s, *sr = NULL;
	char buf[4096], tiny[8];
	pthread_t th;
	int herr = 0, rc;

	h = gethostbyname("localhost");
	show_host("gethostbyname localhost", h, h_errno);
	h = gethostbyname2("localhost", AF_INET);
	show_host("gethostbyname2 localhost", h, h_errno);
	h = gethostbyaddr(&lo, sizeof(lo), AF_INET);
	show_host("gethostbyaddr 127.0.0.1", h, h_errno);
	h = gethostbyname("nosuchhost.invalid");
	show_host("gethostbyname nosuchhost.invalid", h, h_errno);
	rc = gethostbyname_r("localhost", &he, buf, sizeof(buf), &r, &herr);
	printf("gethostbyname_r: rc %d\n", rc);
	show_host("gethostbyname_r localhost", r, herr);
	rc = gethostbyname_r("localhost", &he, tiny, sizeof(tiny), &r, &herr);
	printf("gethostbyname_r (8 bytes): rc %d result %s h_errno %d\n", rc, r ? "set" : "NULL",
	       herr);
	rc = gethostbyaddr_r(&lo, sizeof(lo), AF_INET, &he, buf, sizeof(buf), &r, &herr);
	printf("gethostbyaddr_r: rc %d\n", rc);
	show_host("gethostbyaddr_r 127.0.0.1", r, herr);
	pthread_create(&th, NULL, hosts_thread, "localhost");
	pthread_join(th, NULL);
	s = getservbyname("http", "tcp");
	show_serv("getservbyname http", s);
	s = getservbyport(htons(22), "tcp");
	show_serv("getservbyport 22", s);
	s = getservbyname("no-such-service", "tcp");
	show_serv("getservbyname no-such-service", s);
	rc = getservbyname_r("smtp", "tcp", &se, buf, sizeof(buf), &sr);
	printf("getservbyname_r: rc %d\n", rc);
	show_serv("getservbyname_r smtp", sr);
	rc = getservbyport_r(htons(53), "udp", &se, buf, sizeof(buf), &sr);
	printf("getservbyport_r: rc %d\n", rc);
	show_serv("getservbyport_r 53", sr);
	setservent(0);
	for (int i = 0; i < 3 && (s = getservent()); i++)
		show_serv("getservent", s);
	endservent();
	sethostent(0);
	while (gethostent_r(&he, buf, sizeof(buf), &r, &herr) == 0 && r)
		show_host("gethostent_r", r, herr);
	endhostent();
	return 0;
}

static void show_answer(const char *what, int n, const unsigned char *ans)
{
	printf("%s: %d (h_errno %d)", what, n, h_errno);
	if (n >= 12) /* the header: id, flags, counts */
		printf(" rcode %d answers %d", ans[3] & 15, ans[6] << 8 | ans[7]);
	printf("\n");
}

static int run_res(void)
{
	unsigned char ans[1024], q[512];
	int n;

	n = res_query("nosuchhost.invalid", C_IN, T_A, ans, sizeof(ans));
	show_answer("res_query nosuchhost.invalid", n, ans);
	n = res_search("nosuchhost", C_IN, T_A, ans, sizeof(ans));
	show_answer("res_search nosuchhost", n, ans);
	n = res_mkquery(QUERY, "example.invalid", C_IN, T_A, NULL, 0, NULL, q, sizeof(q));
	printf("res_mkquery: %d bytes, id %u\n", n, n >= 2 ? (unsigned)(q[0] << 8 | q[1]) : 0u);
	if (n > 0) {
		n = res_send(q, n, ans, sizeof(ans));
		show_answer("res_send", n, ans);
	}
	return 0;
}

#define FD_ROUNDS 20
static char fd_log[2][FD_ROUNDS][160];
static pthread_barrier_t fd_round; /* each round, both threads at once */

static void *fds_glibc(void *arg)
{
	const char *file = arg;
	char line[64];
	FILE *p, *f, *t;

	for (int i = 0; i < FD_ROUNDS; i++) {
		char cmd[64];
		int pfd, ffd = -1, tfd = -1;
		struct hostent *h;
		struct servent *s;

		pthread_barrier_wait(&fd_round);
		snprintf(cmd, sizeof(cmd), "echo popen-%d", i);
		p = popen(cmd, "r");
		pfd = p ? fileno(p) : -1;
		line[0] = 0;
		if (p && !fgets(line, sizeof(line), p))
			line[0] = 0;
		line[strcspn(line, "\n")] = 0;
		if (p)
			pclose(p);
		f = fopen("/dev/null", "r");
		if (f) {
			f = freopen(file, "r", f);
			ffd = f ? fileno(f) : -1;
			if (f)
				fclose(f);
		}
		t = tmpfile();
		if (t) {
			tfd = fileno(t);
			fclose(t);
		}
		h = gethostbyname("localhost");
		s = getservbyname("ssh", "tcp");
		snprintf(fd_log[0][i], sizeof(fd_log[0][i]),
			 "glibc %d: popen fd %d read '%s', freopen fd %d, tmpfile fd %d, %s, %s", i,
			 pfd, line, ffd, tfd, h ? h->h_name : "no host", s ? s->s_name : "no service");
	}
	return NULL;
}

static void *fds_plain(void *arg)
{
	const char *file = arg;
	char buf[16];

	for (int i = 0; i < FD_ROUNDS; i++) {
		int fd;

		pthread_barrier_wait(&fd_round);
		usleep(100 * (i % 7)); /* land in different parts of the other's round */
		fd = open(file, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

		buf[n > 0 ? n : 0] = 0;
		buf[strcspn(buf, "\n")] = 0;
		snprintf(fd_log[1][i], sizeof(fd_log[1][i]), "plain %d: open fd %d read '%s'", i, fd,
			 buf);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* lookups FILE: one thread looks names up (glibc opens /etc/hosts and
 * /etc/services inside) while another opens and closes FILE, 300 times
 * each, at once: the numbers the opens got. */
#define LK_ROUNDS 300
static int lk_fds[LK_ROUNDS];

static void *lk_looker(void *arg)
{
	for (int i = 0; i < LK_ROUNDS; i++) {
		gethostbyname("localhost");
		getservbyname("ssh", "tcp");
	}
	return arg;
}

static void *lk_opener(void *arg)
{
	for (int i = 0; i < LK_ROUNDS; i++) {
		int fd = open(arg, O_RDONLY);

		lk_fds[i] = fd;
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static int run_lookups(const char *file)
{
	pthread_t a, b;
	int other = 0;

	pthread_create(&a, NULL, lk_looker, NULL);
	pthread_create(&b, NULL, lk_opener, (void *)file);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int i = 0; i < LK_ROUNDS; i++)
		other += lk_fds[i] != 3;
	printf("opens not at 3: %d\n", other);
	for (int i = 0; i < LK_ROUNDS; i++)
		printf("%d%s", lk_fds[i], i % 30 == 29 ? "\n" : " ");
	return 0;
}

static int run_fds(const char *file)
{
	pthread_t a, b;

	pthread_barrier_init(&fd_round, NULL, 2);
	pthread_create(&a, NULL, fds_glibc, (void *)file);
	pthread_create(&b, NULL, fds_plain, (void *)file);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int t = 0; t < 2; t++)
		for (int i = 0; i < FD_ROUNDS; i++)
			printf("%s\n", fd_log[t][i]);
	return 0;
}

static int walk_fn(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	printf("nftw %s flag %d level %d base %d size %lld\n", path, flag, f->level, f->base,
	       flag == FTW_F ? (long long)st->st_size : -1LL);
	return 0;
}

static int walk_skip(const char *path, const struct stat *st __attribute__((unused)), int flag,
		     struct FTW *f)
{
	printf("nftw-depth %s flag %d level %d\n", path, flag, f->level);
	return flag == FTW_D && strstr(path + f->base, "skip") ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
}

static int walk_chdir(const char *path, const struct stat *st __attribute__((unused)), int flag,
		      struct FTW *f)
{
	char buf[64] = "";
	ssize_t n = 0;
	int fd;

	if (flag != FTW_F)
		return 0;
	fd = open(path + f->base, O_RDONLY); /* relative to the directory nftw is in */
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	printf("nftw-chdir %s: %s\n", path, fd >= 0 ? buf : "cannot open");
	return 0;
}

static int ftw_fn(const char *path, const struct stat *st __attribute__((unused)), int flag)
{
	printf("ftw %s flag %d\n", path, flag);
	return 0;
}

static int run_walk(const char *dir)
{
	struct dirent **list;
	char cwd[4096];
	int n, dfd;

	printf("nftw: %d\n", nftw(dir, walk_fn, 8, FTW_PHYS));
	printf("nftw depth: %d\n", nftw(dir, walk_skip, 8, FTW_PHYS | FTW_DEPTH | FTW_ACTIONRETVAL));
	printf("nftw chdir: %d\n", nftw(dir, walk_chdir, 8, FTW_PHYS | FTW_CHDIR));
	printf("cwd after: %s\n", getcwd(cwd, sizeof(cwd)) ? "same" : "lost");
	printf("ftw: %d\n", ftw(dir, ftw_fn, 8));
	printf("nftw of a missing directory: %d\n", nftw("no-such-dir", walk_fn, 8, 0));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	n = scandirat(dfd, ".", &list, NULL, alphasort);
	printf("scandirat: %d\n", n);
	for (int i = 0; i < n; i++) {
		printf("scandirat %s\n", list[i]->d_name);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	close(dfd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "hosts"))
		return run_hosts();
	if (argc > 1 && !strcmp(argv[1], "res"))
		return run_res();
	if (argc > 2 && !strcmp(argv[1], "fds"))
		return run_fds(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "lookups"))
		return run_lookups(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "walk"))
		return run_walk(argv[2]);
	fprintf(stderr, "usage: rr_netdb hosts | res | fds FILE | lookups FILE | walk DIR\n");
	return 2;
}
