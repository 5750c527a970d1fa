// SPDX-License-Identifier: MIT
/*
 * rr_sockself.c - the socket calls whose results a program sees, for the
 * record/replay tests of sockets (tests/integ/120-122). Every line it
 * prints comes from the network: a replay must print the same lines with
 * no network at all.
 *
 * usage: rr_sockself self          sysinfo (the uptime and free memory), a
 *                                  TCP server on 127.0.0.1 port 0 (prints
 *                                  the port the kernel chose), a
 *                                  non-blocking connect to itself
 *                                  (EINPROGRESS, poll, SO_ERROR), accept4
 *                                  with the peer's address, a request and
 *                                  its answer, shutdown
 *        rr_sockself client PORT   a client of a server on 127.0.0.1:PORT
 *                                  (blocking connect, then a request); a
 *                                  refused connection is printed too
 *        rr_sockself names         getaddrinfo of "localhost" (glibc reads
 *                                  /etc/hosts), getnameinfo, a UDP datagram
 *                                  with its sender's address (recvfrom),
 *                                  three at once (sendmmsg, recvmmsg), a
 *                                  descriptor passed over a socketpair
 *                                  (recvmsg with SCM_RIGHTS), an AF_UNIX
 *                                  socket bound to a path, which is then
 *                                  unlinked
 *        rr_sockself raw           socket, bind to port 0, listen and
 *                                  getsockname made through syscall()
 *        rr_sockself threads       4 threads each making and closing 200
 *                                  sockets and socketpairs at once; prints
 *                                  how many of the descriptors they got
 *                                  existed (2400)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static void die(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	exit(1);
}

static int port_of(int fd, int peer)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);

	if ((peer ? getpeername(fd, (struct sockaddr *)&a, &l)
		  : getsockname(fd, (struct sockaddr *)&a, &l)) < 0)
		die(peer ? "getpeername" : "getsockname");
	return ntohs(a.sin_port);
}

static int self_test(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	struct pollfd p;
	int one = 1, err = -1, lfd, cfd, sfd, type = 0;
	socklen_t el = sizeof(err), tl = sizeof(type);
	char buf[64];
	ssize_t n;

	/* A server's clock of seconds, as lighttpd keeps it: sysinfo's uptime
	 * (its free memory changes from run to run). */
	{
		struct sysinfo si;

		if (sysinfo(&si) == 0)
			printf("uptime %ld s, %lu bytes free\n", si.uptime,
			       (unsigned long)si.freeram * si.mem_unit);
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	printf("setsockopt SO_REUSEADDR: %d\n",
	       setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind");
	if (listen(lfd, 4) < 0)
		die("listen");
	a.sin_port = htons((unsigned short)port_of(lfd, 0));
	printf("listening on port %d (fd %d)\n", ntohs(a.sin_port), lfd);
	if (getsockopt(lfd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
		die("getsockopt SO_TYPE");
	printf("SO_TYPE %d (length %u)\n", type, (unsigned)tl);

	cfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (cfd < 0)
		die("socket");
	if (connect(cfd, (struct sockaddr *)&a, sizeof(a)) < 0)
		printf("connect: %s\n", errno == EINPROGRESS ? "in progress" : strerror(errno));
	else
		printf("connect: at once\n");
	p.fd = cfd;
	p.events = POLLOUT;
	if (poll(&p, 1, 5000) != 1)
		die("poll");
	if (getsockopt(cfd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		die("getsockopt SO_ERROR");
	printf("SO_ERROR %d\n", err);

	sfd = accept4(lfd, (struct sockaddr *)&peer, &pl, SOCK_CLOEXEC);
	if (sfd < 0)
		die("accept4");
	printf("accepted fd %d, address length %u, peer port %s the client's\n", sfd, (unsigned)pl,
	       ntohs(((struct sockaddr_in *)&peer)->sin_port) == port_of(cfd, 0) ? "is"
										 : "is not");
	printf("client's peer port %d\n", port_of(cfd, 1));
	fcntl(cfd, F_SETFL, 0);
	if (send(cfd, "ping", 4, 0) != 4)
		die("send");
	n = recv(sfd, buf, sizeof(buf), 0);
	printf("server got %zd bytes: %.*s\n", n, (int)(n > 0 ? n : 0), buf);
	if (write(sfd, "pong", 4) != 4)
		die("write");
	n = read(cfd, buf, sizeof(buf));
	printf("client got %zd bytes: %.*s\n", n, (int)(n > 0 ? n : 0), buf);
	printf("shutdown: %d\n", shutdown(cfd, SHUT_WR));
	n = recv(sfd, buf, sizeof(buf), 0);
	printf("server got %zd bytes after the shutdown\n", n);
	close(sfd);
	close(cfd);
	close(lfd);
	return 0;
}

static int client_test(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	char buf[256];
	ssize_t n;
	int fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		printf("connect: %s\n", strerror(errno));
		return 2;
	}
	printf("connected from port %d\n", port_of(fd, 0));
	if (send(fd, "hello\n", 6, 0) != 6)
		die("send");
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		printf("reply: %.*s", (int)n, buf);
	close(fd);
	return 0;
}

static int names_test(void)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_CANONNAME}, *res, *ai;
	char host[NI_MAXHOST], serv[NI_MAXSERV], buf[64];
	struct sockaddr_in a = {.sin_family = AF_INET}, from;
	socklen_t fl = sizeof(from);
	int r, u1, u2, sv[2], pfd[2];

	r = getaddrinfo("localhost", "80", &hints, &res);
	if (r) {
		printf("getaddrinfo: %s\n", gai_strerror(r));
		return 1;
	}
	printf("localhost is %s\n", res->ai_canonname ? res->ai_canonname : "(no name)");
	for (ai = res; ai; ai = ai->ai_next) {
		r = getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof(host), serv, sizeof(serv),
				NI_NUMERICHOST | NI_NUMERICSERV);
		printf("  family %d address %s port %s\n", ai->ai_family, r ? gai_strerror(r) : host,
		       r ? "" : serv);
	}
	freeaddrinfo(res);
	printf("nosuchhost.invalid: %s\n",
	       getaddrinfo("nosuchhost.invalid", NULL, NULL, &res) ? "not found" : "found");

	/* A datagram and its sender's address. */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	u1 = socket(AF_INET, SOCK_DGRAM, 0);
	u2 = socket(AF_INET, SOCK_DGRAM, 0);
	if (u1 < 0 || u2 < 0 || bind(u1, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("udp");
	a.sin_port = htons((unsigned short)port_of(u1, 0));
	if (sendto(u2, "datagram", 8, 0, (struct sockaddr *)&a, sizeof(a)) != 8)
		die("sendto");
	r = (int)recvfrom(u1, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	printf("udp: %d bytes from a port that %s the sender's (address length %u)\n", r,
	       ntohs(from.sin_port) == port_of(u2, 0) ? "is" : "is not", (unsigned)fl);
	{ /* three datagrams in one call each way */
		struct mmsghdr v[3];
		struct iovec iv[3];
		struct sockaddr_in fa[3];
		char b[3][16];
		int k, n;

		memset(v, 0, sizeof(v));
		for (k = 0; k < 3; k++) {
			snprintf(b[k], sizeof(b[k]), "mmsg %d", k);
			iv[k] = (struct iovec){b[k], strlen(b[k]) + 1};
			v[k].msg_hdr = (struct msghdr){.msg_name = &a, .msg_namelen = sizeof(a),
						       .msg_iov = &iv[k], .msg_iovlen = 1};
		}
		n = sendmmsg(u2, v, 3, 0);
		printf("sendmmsg: %d sent, lengths %u %u %u\n", n, v[0].msg_len, v[1].msg_len,
		       v[2].msg_len);
		memset(v, 0, sizeof(v));
		memset(b, 0, sizeof(b));
		for (k = 0; k < 3; k++) {
			iv[k] = (struct iovec){b[k], sizeof(b[k])};
			v[k].msg_hdr = (struct msghdr){.msg_name = &fa[k], .msg_namelen = sizeof(fa[k]),
						       .msg_iov = &iv[k], .msg_iovlen = 1};
		}
		n = recvmmsg(u1, v, 3, MSG_WAITFORONE, NULL);
		for (k = 0; k < n; k++)
			printf("recvmmsg %d: %u bytes \"%s\" from %s port\n", k, v[k].msg_len, b[k],
			       ntohs(fa[k].sin_port) == port_of(u2, 0) ? "the sender's" : "another");
	}
	close(u1);
	close(u2);

	/* A descriptor over a socketpair. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || pipe(pfd) < 0)
		die("socketpair");
	printf("socketpair: %d %d\n", sv[0], sv[1]);
	{
		union {
			char b[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = {buf, 1};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
		struct cmsghdr *c;
		int got = -1;

		buf[0] = 'x';
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pfd[0], sizeof(int));
		if (sendmsg(sv[0], &m, 0) != 1)
			die("sendmsg");
		close(pfd[0]);
		memset(&m, 0, sizeof(m));
		memset(&ctl, 0, sizeof(ctl));
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		r = (int)recvmsg(sv[1], &m, 0);
		c = CMSG_FIRSTHDR(&m);
		if (c && c->cmsg_type == SCM_RIGHTS)
			memcpy(&got, CMSG_DATA(c), sizeof(int));
		printf("recvmsg: %d byte, control length %zu, flags %d, descriptor %d (%s)\n", r,
		       (size_t)m.msg_controllen, m.msg_flags, got,
		       got >= 0 && fcntl(got, F_GETFD) >= 0 ? "open" : "not open");
	}
	/* A socket in the file system: the file is there until unlinked. */
	{
		struct sockaddr_un u = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(u.sun_path, sizeof(u.sun_path), "sockself.%d", (int)getpid());
		printf("unix bind: %d\n", bind(fd, (struct sockaddr *)&u, sizeof(u)));
		printf("unix listen: %d\n", listen(fd, 1));
		printf("unlink the socket file: %d\n", unlink(u.sun_path));
		close(fd);
	}
	return 0;
}

/* The same calls through syscall(), as a runtime without libc's wrappers
 * makes them. */
static int raw_test(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t l = sizeof(a);
	long fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || syscall(SYS_bind, fd, &a, sizeof(a)) < 0 || syscall(SYS_listen, fd, 1) < 0 ||
	    syscall(SYS_getsockname, fd, &a, &l) < 0)
		die("raw socket calls");
	printf("raw: fd %ld listening on port %d\n", fd, ntohs(a.sin_port));
	return 0;
}

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static long counted;

static void *thread_sockets(void *arg)
{
	for (int i = 0; i < 200; i++) {
		int sv[2], fd = socket(AF_INET, SOCK_DGRAM, 0);

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
			pthread_mutex_lock(&count_lock);
			counted += (fcntl(sv[0], F_GETFD) >= 0) + (fcntl(sv[1], F_GETFD) >= 0) +
				   (fd >= 0 && fcntl(fd, F_GETFD) >= 0);
			pthread_mutex_unlock(&count_lock);
			close(sv[0]);
			close(sv[1]);
		}
		if (fd >= 0)
			close(fd);
	}
	return arg;
}

static int threads_test(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_sockets, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld descriptors existed\n", counted);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "self"))
		return self_test();
	if (argc > 2 && !strcmp(argv[1], "client"))
		return client_test(atoi(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "names"))
		return names_test();
	if (argc > 1 && !strcmp(argv[1], "raw"))
		return raw_test();
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads_test();
	fprintf(stderr, "usage: rr_sockself self | client PORT | names | raw | threads\n");
	return 2;
}
