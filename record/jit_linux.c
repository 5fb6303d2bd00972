/*
 * jit_linux.c: a process's perf map and jitdumps, followed through /proc
 * (jit.h), their bytes parsed by record/perfmap.c and record/jitdump.c.
 *
 * The perf map is opened in the process's root with openat2(2)'s
 * RESOLVE_IN_ROOT, so that a symlink the process planted leads nowhere
 * outside its root, and with O_NOFOLLOW and O_NONBLOCK, so that a link,
 * a FIFO or a device is refused rather than waited on. What the recorder
 * reads a round is bounded (READ_MAX per file, READ_LAST at the end), so a
 * runtime that writes faster than that costs a round no more, the rest
 * read the next; and what it reads of one file in all (FILE_MAX), so a
 * file of a terabyte of anything costs a gigabyte, once. No process
 * records more code ranges than a trace reader keeps (TRACE_MAX_CODE).
 */
#include "jit.h"

#include "common/diag.h"
#include "record/jitdump.h"
#include "record/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK PERFMAP_LINE_MAX       /* bytes read at once: a line or a record head fits */
#define READ_MAX (4u << 20)          /* bytes of one file read a round */
#define READ_LAST (64u << 20)        /* and at the end */
#define FILE_MAX (1ull << 30)        /* bytes of one file read in all */
#define TAIL 64                      /* bytes before the offset checked, for a rewrite */
#define DUMPS_MAX 8                  /* jitdumps followed per process */

/* A file read on from an offset. */
struct follow {
	int fd;                      /* -1: none yet */
	dev_t dev;
	ino_t ino;
	uint64_t off;
	uint64_t read;               /* bytes read of it in all, to FILE_MAX */
	uint8_t tail[TAIL];          /* the bytes before off */
	size_t ntail;
};

struct dump {
	struct follow f;
	struct jitdump *parse;
	int done;                    /* given up: bad magic or size */
};

struct jit {
	struct target *t;
	pid_t pid;
	uint32_t process;
	uint64_t started;
	uint32_t nspid;              /* the pid in its own namespace; 0: unknown */
	uid_t uid;                   /* its real user */
	int have_uid;
	int same_root;               /* its root is ours: its /tmp is ours */
	int64_t born;                /* when it started, realtime seconds; 0: unknown */
	struct follow map;
	struct perfmap parse;
	int map_found;
	struct dump dumps[DUMPS_MAX];
	size_t ndumps;
	struct jit_stats st;
	/* for the callbacks */
	struct trace_writer *w;
	uint64_t now, mono;
	struct dump *cur;            /* the jitdump being read */
	int err;
};

static uint8_t *scratch;             /* CHUNK bytes, shared: one loop reads */

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The last pid of NSpid (its own namespace's) and the real uid, from
 * /proc/PID/status. */
static void read_ids(struct jit *j)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)j->pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "NSpid:", 6)) {
			char *p = line + 6, *end;

			for (;;) {
				unsigned long v = strtoul(p, &end, 10);

				if (end == p)
					break;
				j->nspid = (uint32_t)v;
				p = end;
			}
		} else if (!strncmp(line, "Uid:", 4)) {
			char *end;
			unsigned long v = strtoul(line + 4, &end, 10);

			if (end != line + 4) {
				j->uid = (uid_t)v;
				j->have_uid = 1;
			}
		}
	}
	fclose(f);
}

/* When the process started, in realtime seconds (rounded down), from
 * /proc/PID/stat's start time in clock ticks since boot; 0 if unknown. */
static int64_t birth(pid_t pid)
{
	char path[64], buf[1024], *p;
	struct timespec real, boot;
	unsigned long long ticks = 0;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return 0;
	buf[n] = 0;
	/* the fields after the name, which may hold anything, in parentheses:
	 * the state is the third field, the start time the 22nd */
	if (!(p = strrchr(buf, ')')))
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return 0;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (int64_t)real.tv_sec - (int64_t)boot.tv_sec + (int64_t)(ticks / (unsigned long long)hz);
}

struct jit *jit_new(struct target *t, uint32_t process, uint64_t started)
{
	struct jit *j = xcalloc(1, sizeof(*j));
	struct stat a, b;
	char path[64];

	j->t = t;
	j->pid = target_pid(t);
	j->process = process;
	j->started = started;
	j->map.fd = -1;
	perfmap_init(&j->parse);
	read_ids(j);
	j->born = birth(j->pid);
	snprintf(path, sizeof(path), "/proc/%d/root", (int)j->pid);
	j->same_root = stat(path, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	return j;
}

void jit_add_stats(const struct jit *j, struct jit_stats *st)
{
	if (!j)
		return;
	st->maps += j->st.maps;
	st->dumps += j->st.dumps;
	st->map_ranges += j->st.map_ranges;
	st->dump_ranges += j->st.dump_ranges;
	st->bad_lines += j->st.bad_lines + j->parse.bad;
	st->cut += j->st.cut + j->parse.cut;
	st->dumps_unreadable += j->st.dumps_unreadable;
	for (size_t i = 0; i < j->ndumps; i++)
		st->bad_records += jitdump_stats(j->dumps[i].parse)->bad;
}

void jit_free(struct jit *j)
{
	if (!j)
		return;
	if (j->map.fd >= 0)
		close(j->map.fd);
	for (size_t i = 0; i < j->ndumps; i++) {
		if (j->dumps[i].f.fd >= 0)
			close(j->dumps[i].f.fd);
		jitdump_free(j->dumps[i].parse);
	}
	free(j);
}

/* Records c: returns 1, or 0 if it is not (past what a reader keeps, or
 * a range the trace cannot hold: not the recording's failure), or a
 * negative trace_writer error. */
static int write_code(struct jit *j, struct trace_code *c)
{
	int r;

	if (j->st.map_ranges + j->st.dump_ranges >= TRACE_MAX_CODE)
		return 0;
	r = trace_writer_code(j->w, j->process, c);
	if (r == TRACE_E_USAGE || r == TRACE_E_TOOBIG)
		return 0;
	if (r < 0)
		return j->err = r;
	return 1;
}

static int on_line(void *ctx, const struct perfmap_entry *e)
{
	struct jit *j = ctx;
	char name[PERFMAP_NAME_MAX + 1];
	int r;
	struct trace_code c = { .time = j->now, .start = e->start, .size = e->size,
				.source = TRACE_CODE_PERF_MAP, .name = name };

	memcpy(name, e->name, e->name_len);
	name[e->name_len] = 0;
	r = write_code(j, &c);
	j->st.map_ranges += r > 0;
	return r < 0;
}

static int on_dump_code(void *ctx, const struct jitdump_code *k)
{
	struct jit *j = ctx;
	const struct jitdump_header *h = jitdump_header(j->cur->parse);
	int r;
	struct trace_code c = { .time = j->now, .start = k->start, .size = k->size,
				.source = TRACE_CODE_JITDUMP, .name = (char *)k->name,
				.file = (char *)k->file, .line = k->file ? k->line : 0 };

	/* The record's own time where it is the recorder's clock: the header
	 * does not say the CPU's counter, and the time is not still to come
	 * (a realtime clock's, or a counter's, is far ahead). The header's
	 * own time says nothing: V8 writes it in realtime microseconds. */
	if (h && !(h->flags & JITDUMP_FLAGS_ARCH_TIMESTAMP) && k->time && k->time <= j->mono)
		c.time = k->time < j->started ? 0 : k->time;
	r = write_code(j, &c);
	j->st.dump_ranges += r > 0;
	return r < 0;
}

/* Whether the TAIL bytes before f's offset are still those read: a file
 * rewritten from its start (truncated, then grown past the offset again)
 * has others. */
static int same_tail(const struct follow *f)
{
	uint8_t now[TAIL];

	if (!f->ntail)
		return 1;
	return pread(f->fd, now, f->ntail, (off_t)(f->off - f->ntail)) == (ssize_t)f->ntail &&
	       !memcmp(now, f->tail, f->ntail);
}

static void keep_tail(struct follow *f)
{
	ssize_t n;

	f->ntail = f->off < TAIL ? (size_t)f->off : TAIL;
	n = pread(f->fd, f->tail, f->ntail, (off_t)(f->off - f->ntail));
	if (n != (ssize_t)f->ntail)
		f->ntail = 0;
}

/* Reads on from f's offset, at most max bytes, giving the bytes to
 * feed(), which returns how many it took (less than it was given: the
 * rest waits for more) or a negative number to stop. */
static void read_on(struct follow *f, uint64_t max, long (*feed)(void *ctx, const uint8_t *p, size_t n),
		    void *ctx)
{
	uint64_t from = f->off;

	if (!scratch)
		scratch = xmalloc(CHUNK);
	while (f->off - from < max && f->read < FILE_MAX) {
		ssize_t n = pread(f->fd, scratch, CHUNK, (off_t)f->off);
		long used;

		if (n <= 0)
			break;
		f->read += (uint64_t)n;
		used = feed(ctx, scratch, (size_t)n);
		if (used < 0)
			break;
		f->off += (uint64_t)used;
		if (used == 0 || (size_t)n < CHUNK)
			break;
	}
	if (f->off != from)
		keep_tail(f);
}

static long feed_map(void *ctx, const uint8_t *p, size_t n)
{
	struct jit *j = ctx;
	size_t used = perfmap_feed(&j->parse, (const char *)p, n, on_line, j);

	return j->err ? -1 : (long)used;
}

/* Opens the perf map as the process sees it: in its root, where it may
 * not lead out; else, when the process is gone and its root and pid
 * namespace were ours, at /tmp. A regular file of the process's user or
 * root only. Returns the fd or -1. */
static int open_map(struct jit *j, struct stat *st)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW;
	struct open_how how = { .flags = flags, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	uint32_t pid = j->nspid ? j->nspid : (uint32_t)j->pid;
	char path[96], name[64];
	int fd = -1, root;

	snprintf(name, sizeof(name), "tmp/perf-%u.map", pid);
	snprintf(path, sizeof(path), "/proc/%d/root", (int)j->pid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root >= 0) {
		fd = (int)syscall(SYS_openat2, root, name, &how, sizeof(how));
		if (fd < 0 && errno == ENOSYS)
			fd = openat(root, name, flags);
		close(root);
	} else if (j->same_root && pid == (uint32_t)j->pid) {
		snprintf(path, sizeof(path), "/%s", name);
		fd = open(path, flags);
	}
	if (fd < 0)
		return -1;
	/* A file last written before the process started is another's, of
	 * the same pid, left behind (V8 leaves its maps): not read unless
	 * this process writes it. */
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) ||
	    !(st->st_uid == 0 || st->st_uid == geteuid() || (j->have_uid && st->st_uid == j->uid)) ||
	    (j->born && (int64_t)st->st_mtim.tv_sec < j->born - 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The map is read from its start again: what the parse counted so far
 * is kept. */
static void map_restart(struct jit *j)
{
	j->st.bad_lines += j->parse.bad;
	j->st.cut += j->parse.cut;
	perfmap_init(&j->parse);
}

static void read_map(struct jit *j, int last)
{
	struct follow *f = &j->map;
	struct stat st;
	int fd = open_map(j, &st);

	if (fd >= 0 && f->fd >= 0 && (st.st_dev != f->dev || st.st_ino != f->ino)) {
		/* Another file at the path: the old one read to its end first. */
		read_on(f, READ_LAST, feed_map, j);
		close(f->fd);
		f->fd = -1;
	}
	if (fd >= 0 && f->fd < 0) {
		*f = (struct follow){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
		map_restart(j);
		if (!j->map_found)
			j->st.maps++;
		j->map_found = 1;
	} else if (fd >= 0) {
		close(fd);
	}
	if (f->fd < 0)
		return;
	if (fstat(f->fd, &st) == 0 && ((uint64_t)st.st_size < f->off || !same_tail(f))) {
		/* Rewritten from its start: read again. */
		f->off = 0;
		f->ntail = 0;
		map_restart(j);
	}
	read_on(f, last ? READ_LAST : READ_MAX, feed_map, j);
}

static long feed_dump(void *ctx, const uint8_t *p, size_t n)
{
	struct jit *j = ctx;
	long used = jitdump_feed(j->cur->parse, p, n, on_dump_code, j);

	if (used < 0) {
		j->cur->done = 1;
		j->st.dumps_unreadable++;
		return -1;
	}
	return j->err ? -1 : used;
}

/* Whether path's file is jit-PID.dump, PID the process's own. */
static int own_dump(const struct jit *j, const char *path)
{
	const char *b = strrchr(path, '/');
	char want[32];

	b = b ? b + 1 : path;
	if (!j->nspid)
		return 1;
	snprintf(want, sizeof(want), "jit-%u.dump", j->nspid);
	return !strncmp(b, want, strlen(want)) && (!b[strlen(want)] || b[strlen(want)] == ' ');
}

static void find_dumps(struct jit *j, struct images *im)
{
	const struct target_mapping *m[DUMPS_MAX];
	size_t n = images_jitdumps(im, m, DUMPS_MAX);

	for (size_t i = 0; i < n && j->ndumps < DUMPS_MAX; i++) {
		struct dump *d;
		struct stat st;
		char why[512];
		int source, fd, known = 0;

		if (!own_dump(j, m[i]->path))
			continue;
		for (size_t k = 0; k < j->ndumps; k++)
			known |= j->dumps[k].f.ino == m[i]->inode;
		if (known || (fd = target_open_mapped(j->t, m[i], &source, &st, why, sizeof(why))) < 0)
			continue;
		d = &j->dumps[j->ndumps++];
		*d = (struct dump){ .f = { .fd = fd, .dev = st.st_dev, .ino = st.st_ino },
				    .parse = jitdump_new() };
		j->st.dumps++;
	}
}

int jit_update(struct jit *j, struct images *im, struct trace_writer *w, uint64_t now, int last)
{
	j->w = w;
	j->now = now;
	j->mono = mono_now();
	j->err = 0;
	read_map(j, last);
	if (im)
		find_dumps(j, im);
	for (size_t i = 0; i < j->ndumps && !j->err; i++) {
		j->cur = &j->dumps[i];
		if (!j->cur->done)
			read_on(&j->cur->f, last ? READ_LAST : READ_MAX, feed_dump, j);
	}
	return j->err;
}
