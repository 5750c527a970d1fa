// SPDX-License-Identifier: MIT
/*
 * stream_send.c - the board's side of --stream (stream_send.h): a thread
 * that mirrors the trace directory into a TCP connection.
 *
 * The thread never touches the writer or the collector: it looks at the
 * directory (fstatat) and reads the files (pread), so the collector's hot
 * path is the same with or without --stream, and a slow network only
 * delays the mirror. It counts the events of the stream files' packets
 * from their headers and announces them (STREAM_EVENTS), hears the
 * receiver's confirmations, and with --no-keep punches the confirmed
 * packets out of the stream files (the writer only appends past them). What was sent is remembered per file (its inode,
 * size and modification time); each pass sends the difference. The send
 * state is owned by the thread while it runs and by the main thread before
 * and after (pthread_join orders the two).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../trace/stream_proto.h"
#include "../trace/trace_int.h"
#include "../util/files.h"
#include "../util/log.h"
#include "stream_send.h"

struct ss_file {
	char rel[STREAM_MAX_PATH + 1];
	uint64_t ino;
	uint64_t size; /* bytes the receiver has */
	struct timespec mtime;
	int seen;	  /* in this pass */
	uint64_t counted; /* a stream file: its whole packets counted up to here */
	uint64_t counted_events; /* ... holding this many events */
	uint64_t punched, punched_events; /* --no-keep: freed up to here, that many */
	uint64_t sent_end;		  /* the end of the bytes the receiver has */
};

/* --no-keep: an announcement (STREAM_EVENTS) the receiver has not
 * confirmed yet: once it has `cum` events, file rel may lose [0, end). */
struct ss_owed {
	uint64_t cum, ino, end, file_events;
	char rel[32];
};

static struct {
	int fd; /* the connection; -1: none, or cut */
	char peer[300];
	char dir[PATH_MAX], final[PATH_MAX];
	int begun;
	struct ss_file *files;
	size_t nfiles;
	uint64_t sent;	/* data bytes since the last RESET */
	uint64_t total; /* all bytes on the wire */
	int cut;	/* the connection failed: said once */
	int format;	/* the trace's version (its metadata); 0: not known yet */
	uint64_t announced;	 /* events announced (STREAM_EVENTS) on this connection */
	uint64_t gen_base;	 /* announced at the last RESET */
	uint64_t confirmed;	 /* the receiver's last STREAM_CONFIRM */
	unsigned char in[16];	 /* a STREAM_CONFIRM being read */
	size_t in_len;
	int no_keep;		 /* --no-keep: free what the receiver confirmed */
	struct ss_owed *owed;	 /* the announcements not confirmed, oldest first */
	size_t nowed, owed_head, owed_cap;
	uint64_t freed;		 /* bytes punched out */
	unsigned char *buf;
	pthread_t thread;
	int running;
	int stop; /* atomic: the thread ends its loop */
} ss = {.fd = -1};

static int ss_write(const void *p, size_t len);
static void ss_cut(int err);

/* stream_send_whole_end's marks, per stream id: end + 1 (0: none, the
 * whole file is finished packets). The collector sets them, the sending
 * thread reads them. */
static pthread_mutex_t ss_marks_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *ss_marks;
static size_t ss_nmarks;

void stream_send_whole_end(uint32_t id, uint64_t end)
{
	if (!stream_send_active())
		return;
	pthread_mutex_lock(&ss_marks_lock);
	if (id >= ss_nmarks) {
		size_t n = ss_nmarks ? ss_nmarks : 64;
		uint64_t *m;

		while (n <= id)
			n *= 2;
		m = realloc(ss_marks, n * sizeof(*m));
		if (m) {
			memset(m + ss_nmarks, 0, (n - ss_nmarks) * sizeof(*m));
			ss_marks = m;
			ss_nmarks = n;
		}
	}
	/* (without memory for it, no mark: a provisional packet then goes as
	 * a finished one, as before marks) */
	if (id < ss_nmarks)
		ss_marks[id] = end + 1;
	pthread_mutex_unlock(&ss_marks_lock);
}

/* The finished part of stream file rel of size bytes (size when it has no
 * mark, or it is not a stream file). */
static uint64_t ss_whole_end(const char *rel, uint64_t size)
{
	uint64_t end = size;
	char *e;
	unsigned long id;

	if (strncmp(rel, TRACE_STREAM_PREFIX, sizeof(TRACE_STREAM_PREFIX) - 1))
		return size;
	id = strtoul(rel + sizeof(TRACE_STREAM_PREFIX) - 1, &e, 10);
	if (*e)
		return size;
	pthread_mutex_lock(&ss_marks_lock);
	if (id < ss_nmarks && ss_marks[id] && ss_marks[id] - 1 < size)
		end = ss_marks[id] - 1;
	pthread_mutex_unlock(&ss_marks_lock);
	return end;
}

/* Forget the marks: a new trace, or the writer closed (every packet is
 * finished). */
static void ss_marks_clear(void)
{
	pthread_mutex_lock(&ss_marks_lock);
	if (ss_marks)
		memset(ss_marks, 0, ss_nmarks * sizeof(*ss_marks));
	pthread_mutex_unlock(&ss_marks_lock);
}

int stream_send_active(void)
{
	return ss.peer[0] != '\0';
}

void stream_send_no_keep(void)
{
	ss.no_keep = 1;
}

int stream_send_keeps(void)
{
	return !ss.no_keep;
}

int stream_send_option(const char *hostport)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL, *a;
	char host[256];
	const char *colon = strrchr(hostport, ':');
	int rc, one = 1;

	if (ss.peer[0]) {
		log_err("--stream: given twice");
		return -EINVAL;
	}
	if (!colon || colon == hostport || !colon[1] ||
	    (size_t)(colon - hostport) >= sizeof(host)) {
		log_err("--stream '%s': want HOST:PORT", hostport);
		return -EINVAL;
	}
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = '\0';
	/* [::1]:7000 */
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc) {
		log_err("--stream '%s': %s", hostport, gai_strerror(rc));
		return -EINVAL;
	}
	rc = -ECONNREFUSED;
	for (a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);

		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			ss.fd = fd;
			break;
		}
		rc = -errno;
		close(fd);
	}
	freeaddrinfo(res);
	if (ss.fd < 0) {
		log_err("--stream %s: cannot connect (%s): is spool receive running there?",
			hostport, strerror(-rc));
		return rc;
	}
	(void)setsockopt(ss.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	snprintf(ss.peer, sizeof(ss.peer), "%s", hostport);
	ss.buf = malloc(STREAM_CHUNK);
	if (!ss.buf)
		return -ENOMEM;
	rc = ss_write(STREAM_MAGIC, sizeof(STREAM_MAGIC) - 1);
	if (rc)
		ss_cut(rc);
	return 0;
}

/* Whole buffer or -errno; MSG_NOSIGNAL: a closed peer is an error, not a
 * SIGPIPE that kills spool with the program still running. */
static int ss_write(const void *p, size_t len)
{
	const char *b = p;

	while (len) {
		ssize_t n = send(ss.fd, b, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		b += n;
		len -= (size_t)n;
		ss.total += (uint64_t)n;
	}
	return 0;
}

static void ss_cut(int err)
{
	if (ss.cut)
		return;
	ss.cut = 1;
	log_warn("--stream %s: the connection was cut (%s) after %" PRIu64
		 " bytes: the trace is kept here, whole; the receiver's copy is incomplete",
		 ss.peer, strerror(-err), ss.total);
	if (ss.fd >= 0)
		close(ss.fd);
	ss.fd = -1;
}

static int ss_frame(uint32_t type, const char *rel, uint64_t off, const void *data, size_t len)
{
	unsigned char h[STREAM_HDR_SIZE];
	size_t plen = rel ? strlen(rel) : 0;
	int rc;

	if (ss.fd < 0)
		return -EPIPE;
	stream_put_u32(h, type);
	stream_put_u32(h + 4, (uint32_t)plen);
	stream_put_u64(h + 8, off);
	stream_put_u64(h + 16, len);
	rc = ss_write(h, sizeof(h));
	if (!rc && plen)
		rc = ss_write(rel, plen);
	if (!rc && len)
		rc = ss_write(data, len);
	if (rc)
		ss_cut(rc);
	return rc;
}

/* Bytes [from, to) of the open file fd, as DATA frames. */
static int ss_send_range(int fd, const char *rel, uint64_t from, uint64_t to)
{
	while (from < to) {
		size_t want = to - from < STREAM_CHUNK ? (size_t)(to - from) : STREAM_CHUNK;
		ssize_t n = pread(fd, ss.buf, want, (off_t)from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0; /* shorter now: the next pass sees it */
		if (ss_frame(STREAM_DATA, rel, from, ss.buf, (size_t)n))
			return -EPIPE;
		ss.sent += (uint64_t)n;
		from += (uint64_t)n;
	}
	return 0;
}

static struct ss_file *ss_find(const char *rel)
{
	struct ss_file *nf;

	for (size_t i = 0; i < ss.nfiles; i++)
		if (!strcmp(ss.files[i].rel, rel))
			return &ss.files[i];
	if (ss.nfiles >= STREAM_MAX_FILES)
		return NULL;
	nf = realloc(ss.files, (ss.nfiles + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	ss.files = nf;
	nf = &ss.files[ss.nfiles++];
	memset(nf, 0, sizeof(*nf));
	memcpy(nf->rel, rel, strnlen(rel, STREAM_MAX_PATH)); /* NUL: the memset */
	nf->ino = UINT64_MAX;				     /* new: sent whole */
	return nf;
}

/* The trace's version, from its metadata's first line: events are counted
 * in version-2 packets only (version 1's have no count). */
static int ss_format(void)
{
	char buf[sizeof(TRACE_METADATA_SIGNATURE) + 1] = "";
	char path[PATH_MAX + 16];
	size_t sig = sizeof(TRACE_METADATA_SIGNATURE) - 1;
	int fd;

	if (ss.format)
		return ss.format;
	snprintf(path, sizeof(path), "%s/" TRACE_METADATA, ss.dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* not written yet: the next file asks again */
	if (pread(fd, buf, sig + 1, 0) == (ssize_t)(sig + 1) &&
	    !memcmp(buf, TRACE_METADATA_SIGNATURE, sig))
		ss.format = buf[sig] == '2' ? 2 : 1;
	close(fd);
	return ss.format;
}

/* Whether rel is a stream file of the trace (not of a replay under it). */
static int ss_counts(const char *rel)
{
	return !strncmp(rel, TRACE_STREAM_PREFIX, sizeof(TRACE_STREAM_PREFIX) - 1) &&
	       !strchr(rel, '/');
}

/* The events in the whole packets of fd from *from up to `to` (its size
 * now); *from moves to the end of the last whole one. Reads only the
 * packet headers. A packet the writer has not finished writing (its header
 * there, its end beyond `to`) waits for the next pass. */
static uint64_t ss_count(int fd, uint64_t *from, uint64_t to)
{
	unsigned char h[TRACE_PKT_HDR_SIZE2];
	uint64_t events = 0, size, n;

	while (to - *from >= sizeof(h) &&
	       pread(fd, h, sizeof(h), (off_t)*from) == (ssize_t)sizeof(h) &&
	       stream_proto_packet(h, &size, &n) && size <= to - *from) {
		events += n;
		*from += size;
	}
	return events;
}

/* What the receiver said so far (non-blocking), or within ms when ms > 0:
 * STREAM_CONFIRM (16 bytes) updates ss.confirmed; STREAM_ACK (8) returns 1.
 * 0: nothing more now; <0: the connection failed or spoke nonsense. */
static int ss_hear(int ms)
{
	for (;;) {
		size_t want = ss.in_len < 8 ? 8 : 16;
		struct pollfd p = {.fd = ss.fd, .events = POLLIN};
		ssize_t n;
		int pr;

		if (ss.in_len == 8 && !memcmp(ss.in, STREAM_ACK, 8)) {
			ss.in_len = 0;
			return 1;
		}
		if (ss.in_len == 8 && memcmp(ss.in, STREAM_CONFIRM, 8))
			return -EPROTO;
		if (ss.in_len == 16) {
			uint64_t v = stream_get_u64(ss.in + 8);

			if (v > ss.confirmed)
				ss.confirmed = v;
			ss.in_len = 0;
			continue;
		}
		pr = poll(&p, 1, ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -errno;
		if (pr == 0)
			return ms > 0 ? -ETIMEDOUT : 0;
		n = recv(ss.fd, ss.in + ss.in_len, want - ss.in_len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		ss.in_len += (size_t)n;
	}
}

/* --no-keep: remember an announcement, to free its bytes once confirmed.
 * Without memory for it, the bytes are simply kept. */
static void ss_owe(const char *rel, uint64_t ino, uint64_t end, uint64_t file_events)
{
	struct ss_owed *o;

	if (strlen(rel) >= sizeof(o->rel))
		return;
	if (ss.owed_head && ss.owed_head == ss.nowed)
		ss.owed_head = ss.nowed = 0;
	if (ss.nowed == ss.owed_cap) {
		size_t cap = ss.owed_cap ? ss.owed_cap * 2 : 64;

		if (ss.owed_head) { /* room at the front: move down first */
			memmove(ss.owed, ss.owed + ss.owed_head,
				(ss.nowed - ss.owed_head) * sizeof(*o));
			ss.nowed -= ss.owed_head;
			ss.owed_head = 0;
		} else {
			o = realloc(ss.owed, cap * sizeof(*o));
			if (!o)
				return;
			ss.owed = o;
			ss.owed_cap = cap;
		}
	}
	o = &ss.owed[ss.nowed++];
	o->cum = ss.announced;
	o->ino = ino;
	o->end = end;
	o->file_events = file_events;
	snprintf(o->rel, sizeof(o->rel), "%s", rel);
}

/* --no-keep: punch out of the stream files what the receiver confirmed.
 * Only this run's own stream files (in the directory its writer made),
 * only whole packets, and only past the first STREAM_SEND_SMALL bytes of a
 * file (a smaller file would be sent whole again, holes and all). The
 * writer appends with pwrite at its own offsets: a hole before them
 * changes nothing for it. */
static void ss_free(void)
{
	while (ss.owed_head < ss.nowed && ss.owed[ss.owed_head].cum <= ss.confirmed) {
		struct ss_owed *o = &ss.owed[ss.owed_head++];
		struct ss_file *f = NULL;
		char path[PATH_MAX + 40];
		struct stat st;
		int fd;

		for (size_t i = 0; i < ss.nfiles && !f; i++)
			if (!strcmp(ss.files[i].rel, o->rel))
				f = &ss.files[i];
		if (!f || f->ino != o->ino || o->end <= f->punched || o->end <= STREAM_SEND_SMALL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", ss.dir, o->rel);
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && (uint64_t)st.st_ino == o->ino &&
		    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)o->end) ==
			0) {
			ss.freed += o->end - f->punched;
			f->punched = o->end;
			f->punched_events = o->file_events;
		}
		close(fd);
	}
}

/* One file: what changed since the last pass. */
static int ss_file(int dirfd, const char *name, const char *rel)
{
	struct ss_file *f;
	struct stat st;
	int fd, rc = 0, whole, changed;
	uint64_t whole_end;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0; /* renamed or removed meanwhile: the next pass sees it */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = ss_find(rel)))
		goto out;
	f->seen = 1;
	changed = st.st_mtim.tv_sec != f->mtime.tv_sec || st.st_mtim.tv_nsec != f->mtime.tv_nsec;
	/* new or replaced, shorter, or a small (or same-size) file rewritten */
	/* (a file partly freed, --no-keep, is never sent whole again: its
	 * start reads as zeros now; freeing changed its mtime) */
	whole = f->ino != (uint64_t)st.st_ino || (uint64_t)st.st_size < f->size ||
		(changed && !f->punched &&
		 ((uint64_t)st.st_size <= STREAM_SEND_SMALL || (uint64_t)st.st_size == f->size));
	if (f->ino != (uint64_t)st.st_ino)
		f->counted = f->counted_events = f->punched = f->punched_events = f->sent_end = 0;
	/* read before the bytes: what is finished now stays as it is */
	whole_end = ss_counts(rel) ? ss_whole_end(rel, (uint64_t)st.st_size) : (uint64_t)st.st_size;
	if (ss_counts(rel) && ss_format() == 2) {
		uint64_t n = ss_count(fd, &f->counted, whole_end);
		unsigned char end[8];

		stream_put_u64(end, f->counted);
		if (n && (rc = ss_frame(STREAM_EVENTS, rel, n, end, sizeof(end))))
			goto out;
		ss.announced += n;
		f->counted_events += n;
		if (n && ss.no_keep)
			ss_owe(rel, (uint64_t)st.st_ino, f->counted, f->counted_events);
	}
	if (whole) {
		rc = ss_send_range(fd, rel, 0, (uint64_t)st.st_size);
		if (!rc)
			rc = ss_frame(STREAM_SIZE, rel, (uint64_t)st.st_size, NULL, 0);
	} else if ((uint64_t)st.st_size > f->size &&
		   (f->size < whole_end || changed || (uint64_t)st.st_size != f->sent_end)) {
		/* (past whole_end: a provisional packet, sent again while it
		 * changes; a shorter one than the receiver has is cut there) */
		rc = ss_send_range(fd, rel, f->size, (uint64_t)st.st_size);
		if (!rc && (uint64_t)st.st_size < f->sent_end)
			rc = ss_frame(STREAM_SIZE, rel, (uint64_t)st.st_size, NULL, 0);
	} else if ((uint64_t)st.st_size < f->sent_end) {
		rc = ss_frame(STREAM_SIZE, rel, (uint64_t)st.st_size, NULL, 0);
	}
	if (!rc) {
		f->ino = (uint64_t)st.st_ino;
		f->sent_end = (uint64_t)st.st_size;
		/* the receiver has it all, but what is not finished comes again */
		f->size = whole_end < (uint64_t)st.st_size ? whole_end : (uint64_t)st.st_size;
		f->mtime = st.st_mtim;
		/* the receiver's confirmations, so its socket buffer never fills */
		if (ss_hear(0) < 0)
			ss_cut(-EPROTO);
		else if (ss.no_keep)
			ss_free();
	}
out:
	close(fd);
	return rc;
}

/* Every regular file under dirfd (rel: its path so far), depth-first. */
static int ss_walk(int dirfd, const char *rel, int depth)
{
	DIR *d;
	struct dirent *e;
	int rc = 0, dfd = dup(dirfd);

	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while (!rc && (e = readdir(d))) {
		char sub[STREAM_MAX_PATH + 2];
		int n;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n = snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (n < 0 || (size_t)n > STREAM_MAX_PATH || !stream_proto_path_ok(sub, (size_t)n))
			continue; /* not a name spool writes */
		if (e->d_type == DT_DIR) {
			int cfd;

			if (depth >= STREAM_MAX_DEPTH)
				continue;
			cfd = openat(dirfd, e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd < 0)
				continue;
			rc = ss_walk(cfd, sub, depth + 1);
			close(cfd);
		} else if (e->d_type == DT_REG || e->d_type == DT_UNKNOWN) {
			rc = ss_file(dirfd, e->d_name, sub);
		}
	}
	closedir(d);
	return rc;
}

/* One pass over dir: the changes, and the files gone since. */
static int ss_pass(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;
	size_t k = 0;

	if (dfd < 0)
		return 0;
	for (size_t i = 0; i < ss.nfiles; i++)
		ss.files[i].seen = 0;
	rc = ss_walk(dfd, "", 0);
	close(dfd);
	if (rc)
		return rc;
	for (size_t i = 0; i < ss.nfiles; i++) {
		if (!ss.files[i].seen) {
			if (ss_frame(STREAM_REMOVE, ss.files[i].rel, 0, NULL, 0))
				return -EPIPE;
			continue;
		}
		ss.files[k++] = ss.files[i];
	}
	ss.nfiles = k;
	return 0;
}

static void *ss_thread(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&ss.stop, __ATOMIC_ACQUIRE) && ss.fd >= 0) {
		struct timespec ts = {0, STREAM_SEND_PERIOD_MS * 1000000L};

		if (ss_pass(ss.dir))
			break;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

void stream_send_begin(const char *dir, const char *final)
{
	sigset_t all, old;
	int rc;

	if (!stream_send_active() || ss.fd < 0)
		return;
	stream_send_pause();
	snprintf(ss.dir, sizeof(ss.dir), "%s", dir);
	snprintf(ss.final, sizeof(ss.final), "%s", final);
	ss.nfiles = 0;
	ss.sent = 0;
	ss.format = 0;
	ss.gen_base = ss.announced;
	ss.owed_head = ss.nowed = 0;
	ss.begun = 1;
	ss_marks_clear();
	if (ss_frame(STREAM_RESET, NULL, 0, NULL, 0))
		return;
	__atomic_store_n(&ss.stop, 0, __ATOMIC_RELEASE);
	/* Every signal blocked in the thread (it inherits the mask): SIGCHLD
	 * and ^C go to the thread that waits for them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&ss.thread, NULL, ss_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		ss.running = 1;
	else
		log_warn("--stream: no sending thread: the trace goes at the end of the run");
}

void stream_send_pause(void)
{
	if (!ss.running)
		return;
	__atomic_store_n(&ss.stop, 1, __ATOMIC_RELEASE);
	pthread_join(ss.thread, NULL);
	ss.running = 0;
}

/* The receiver's STREAM_ACK, within 60 s of silence. */
static int ss_wait_ack(void)
{
	int rc;

	while ((rc = ss_hear(60000)) == 0)
		;
	return rc < 0 ? rc : 0;
}

/* The events in the whole packets of the trace's stream files in dir. */
static uint64_t ss_trace_events(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t events = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;
		uint64_t from = 0;
		int fd;

		if (!ss_counts(e->d_name))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (size_t i = 0; i < ss.nfiles; i++)
			if (!strcmp(ss.files[i].rel, e->d_name) && ss.files[i].punched) {
				from = ss.files[i].punched; /* (zeros before) */
				events += ss.files[i].punched_events;
			}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			events += ss_count(fd, &from, (uint64_t)st.st_size);
		close(fd);
	}
	closedir(d);
	return events;
}

int stream_send_finish(void)
{
	int rc = 0;

	if (!stream_send_active())
		return 0;
	stream_send_pause();
	if (!ss.begun) {
		log_warn("--stream %s: no trace was written, nothing sent", ss.peer);
		rc = -EIO;
		goto out;
	}
	if (ss.fd < 0)
		rc = -EPIPE;
	snprintf(ss.dir, sizeof(ss.dir), "%s", ss.final); /* (the writer renamed it) */
	ss_marks_clear(); /* (the writer closed: every packet is finished) */
	if (!rc)
		rc = ss_pass(ss.final);
	if (!rc)
		rc = ss_frame(STREAM_END, NULL, ss.sent, NULL, 0);
	if (!rc) {
		rc = ss_wait_ack();
		if (rc)
			ss_cut(rc);
	}
	if (rc) {
		uint64_t total, conf;

		total = ss_format() == 2 ? ss_trace_events(ss.final) : 0;
		conf = ss.confirmed > ss.gen_base ? ss.confirmed - ss.gen_base : 0;

		if (ss.freed)
			log_warn("--stream %s: the receiver confirmed %" PRIu64 " of the trace's %" PRIu64
				 " events: %" PRIu64 " events are not on the host; they stay in %s "
				 "(--no-keep: without the %" PRIu64 " bytes the receiver confirmed, "
				 "freed: the two copies together hold the trace)",
				 ss.peer, conf, total, total > conf ? total - conf : 0, ss.final,
				 ss.freed);
		else if (ss.format == 2 && total > conf)
			log_warn("--stream %s: the receiver confirmed %" PRIu64 " of the trace's %" PRIu64
				 " events: %" PRIu64 " events are not on the host; the whole trace "
				 "stays in %s",
				 ss.peer, conf, total, total - conf, ss.final);
		else
			log_warn("--stream %s: the receiver does not have the whole trace: it stays in %s",
				 ss.peer, ss.final);
		rc = -EIO;
		goto out;
	}
	if (files_rm_tree(ss.final) < 0)
		log_warn("--stream: cannot remove the local copy %s: %s", ss.final,
			 strerror(errno));
	if (ss.no_keep)
		log_info("stream: %" PRIu64 " bytes of trace sent to %s (%" PRIu64
			 " freed as the receiver confirmed them; the rest of the local copy is "
			 "removed)",
			 ss.sent, ss.peer, ss.freed);
	else
		log_info("stream: %" PRIu64 " bytes of trace sent to %s (the local copy is removed)",
			 ss.sent, ss.peer);
out:
	if (ss.fd >= 0)
		close(ss.fd);
	ss.fd = -1;
	free(ss.files);
	free(ss.buf);
	free(ss.owed);
	ss.owed = NULL;
	ss.nowed = ss.owed_head = ss.owed_cap = 0;
	ss.files = NULL;
	ss.buf = NULL;
	ss.nfiles = 0;
	return rc;
}
