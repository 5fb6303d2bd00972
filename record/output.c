/*
 * output.c: the files of one recording (output.h).
 *
 * The first file is opened before any process is touched, so a bad path
 * fails first, and it is made the recording's only when the recording
 * starts (output_claim()): an existing file (-f) is left as it was until
 * then, and so is an existing set of numbered files. A switch or snapshot
 * is asked by SIGUSR2, whose handler only counts, and by the control
 * channel and --snapshot-on-crash, which queue; output_tick() then does
 * one a round, so none is lost and none is written while another is.
 */
#include "record/output.h"
#include "record/events.h"
#include "record/session.h"
#include "common/diag.h"
#include "format/trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The digits of a file's number: a set sorts in time order by name up to
 * a million files. */
#define PART_DIGITS 6
#define PART_SUFFIX ".trace"

struct output {
	const struct session_options *o;
	struct events *events;
	char *path;             /* the file being written, or -o */
	int fd;
	int existed;            /* -f found a file there: it is left as it was
	                         * until output_claim() */
	int ours;               /* created or emptied by this run */
	uint32_t first;         /* the oldest numbered file of this run kept */
	uint32_t part;          /* the file being written (--switch-output), or
	                         * the last snapshot (--ring); 0 for none */
	uint64_t file_start;    /* when the file being written began */
	uint64_t file_samples;  /* the writer's samples then */
	unsigned signals_done;  /* SIGUSR2s acted on */
	unsigned queued;        /* asks of the control channel, and crashes */
	int stuck;              /* the next file could not be created: the
	                         * recording goes on in this one */
};

static volatile sig_atomic_t signals_asked;

static void on_sigusr2(int sig)
{
	(void)sig;
	signals_asked++;
}

/* -o is cut into files, or kept in a ring whose snapshots are numbered. */
static int numbered(const struct session_options *o)
{
	return o->switch_ns || o->switch_bytes || o->switch_signal || o->ring_ns;
}

/* -o split for its set: the directory, the name before the number and
 * what comes after it (".trace", or nothing). */
struct set_name {
	char *dir, *base;
	const char *suffix;
};

/* The length of -o without its ".trace" ending, if it has one (not a
 * name that is all ending). */
static size_t stem_len(const char *out)
{
	size_t len = strlen(out), sl = strlen(PART_SUFFIX);

	return len > sl && !strcmp(out + len - sl, PART_SUFFIX) && out[len - sl - 1] != '/' ? len - sl : len;
}

static struct set_name set_name(const char *out)
{
	size_t stem_n = stem_len(out);
	char *stem = xasprintf("%.*s", (int)stem_n, out), *slash = strrchr(stem, '/');
	struct set_name n = { .suffix = out[stem_n] ? PART_SUFFIX : "" };

	if (!slash) {
		n.dir = xstrdup(".");
		n.base = stem;
		return n;
	}
	n.dir = xasprintf("%.*s", slash == stem ? 1 : (int)(slash - stem), stem);
	n.base = xstrdup(slash + 1);
	free(stem);
	return n;
}

/* The name of file n of -o's set: the number before a ".trace" ending,
 * or after a name without one. */
static char *part_name(const char *out, uint32_t n)
{
	size_t stem_n = stem_len(out);

	return xasprintf("%.*s.%0*u%s", (int)stem_n, out, PART_DIGITS, n, out + stem_n);
}

/* Whether name, in -o's directory, is a numbered file of -o's set: the
 * base, a dot, PART_DIGITS digits or more, then the suffix. */
static int of_set(const char *name, const struct set_name *n)
{
	size_t len = strlen(name), blen = strlen(n->base), slen = strlen(n->suffix);

	if (len < blen + 1 + PART_DIGITS + slen || strncmp(name, n->base, blen) || name[blen] != '.' ||
	    strcmp(name + len - slen, n->suffix))
		return 0;
	for (size_t i = blen + 1; i < len - slen; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	return 1;
}

/* Calls fn with the path of each file of -o's set there is, whichever
 * run wrote it, and returns how many. */
static size_t each_of_set(const char *out, void (*fn)(const char *path, void *ctx), void *ctx)
{
	struct set_name n = set_name(out);
	int here = !strchr(out, '/');
	size_t found = 0;
	struct dirent *e;
	DIR *d = opendir(n.dir);

	while (d && (e = readdir(d))) {
		char *path;

		if (!of_set(e->d_name, &n))
			continue;
		found++;
		path = here ? xstrdup(e->d_name)
			    : xasprintf("%s%s%s", n.dir, strcmp(n.dir, "/") ? "/" : "", e->d_name);
		fn(path, ctx);
		free(path);
	}
	if (d)
		closedir(d);
	free(n.dir);
	free(n.base);
	return found;
}

/* The first file of the set found, for the message that refuses it. */
static void first_found(const char *path, void *ctx)
{
	char **first = ctx;

	if (!*first || strcmp(path, *first) < 0) {
		free(*first);
		*first = xstrdup(path);
	}
}

/* Removes a file of an earlier run's set, but not the one this run has
 * open to write. */
static void remove_old(const char *path, void *ctx)
{
	const struct output *out = ctx;

	if (strcmp(path, out->path))
		unlink(path);
}

/* Opens path for writing, creating only a new file: an existing one is
 * opened as it is, with -f, and emptied by output_claim(). */
static int open_file(struct output *out, const char *path)
{
	out->existed = out->ours = 0;
	out->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out->fd >= 0) {
		out->ours = 1;
		return 0;
	}
	if (errno != EEXIST || !out->o->force)
		return -errno;
	/* O_CREAT as before: a dangling symlink's target is created (and
	 * never removed: output_discard() removes only what path names). */
	out->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (out->fd < 0)
		return -errno;
	out->existed = 1;
	return 0;
}

int output_open(const struct session_options *o, struct events *events, struct output **outp)
{
	struct output *out = xcalloc(1, sizeof(*out));
	char *found = NULL;
	int r;

	*outp = out;
	out->o = o;
	out->events = events;
	out->fd = -1;
	if (numbered(o) && !o->force && each_of_set(o->out_path, first_found, &found)) {
		error("cannot create the files of '%s': '%s' is there, of an earlier recording (use -f to remove "
		      "that recording's files, or another -o)", o->out_path, found);
		free(found);
		return -1;
	}
	/* With --switch-output the recording is the numbered files, and -o
	 * itself is not written. */
	out->part = o->ring_ns || !numbered(o) ? 0 : 1;
	out->first = 1;
	out->path = out->part ? part_name(o->out_path, 1) : xstrdup(o->out_path);
	r = open_file(out, out->path);
	if (r == -EEXIST) {
		error("cannot create '%s': File exists (use -f to overwrite it)", out->path);
		return -1;
	}
	if (r < 0) {
		error("cannot create '%s': %s", out->path, strerror(-r));
		return -1;
	}
	if (numbered(o)) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigusr2; /* no SA_RESTART: a sleep ends early */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR2, &sa, NULL);
	}
	return 0;
}

int output_claim(struct output *out)
{
	struct stat st;

	if (out->o->force && numbered(out->o))
		each_of_set(out->o->out_path, remove_old, out);
	if (!out->existed || fstat(out->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	out->ours = 1;
	if (ftruncate(out->fd, 0) < 0)
		return error("cannot write '%s': %s", out->path, strerror(errno));
	if (fchmod(out->fd, 0600) < 0)
		return error("cannot change the mode of '%s': %s", out->path, strerror(errno));
	return 0;
}

int output_writer(struct output *out, struct trace_session *sess, struct trace_writer **w)
{
	const struct session_options *o = out->o;

	if (numbered(o)) {
		/* One number for the files of the recording: when and who. */
		sess->recording = sess->start_realtime_ns ^ sess->start_monotonic_ns << 20 ^ (uint64_t)getpid() << 40;
		sess->recording |= 1;
	}
	out->file_start = sess->start_monotonic_ns;
	if (o->ring_ns)
		return trace_writer_new_ring(sess, o->ring_ns, o->ring_bytes, w);
	if (out->part) {
		sess->part_kind = TRACE_PART_ROTATED;
		sess->part = 1;
	}
	return trace_writer_new(out->fd, sess, w);
}

/* Opens the next file of the set for a switch or a snapshot: new, or
 * with -f emptied. Returns the descriptor, or -1 with errno set. */
static int open_part(const struct output *out, const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (out->o->force ? O_TRUNC : O_EXCL), 0600);
}

/* Why a file of the set could not be created, as a phrase. */
static const char *create_why(int err)
{
	return err == EEXIST ? "File exists, made since the recording began (-f overwrites)" : strerror(err);
}

static uint64_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Tells the events and, with -v, the terminal of a file written. */
static void told(const struct output *out, const char *what, const char *path, uint32_t part, uint64_t from,
		 uint64_t to, uint64_t samples, uint64_t bytes)
{
	struct events_file f = { what, path, part, from, to, samples, bytes };

	events_file(out->events, &f);
	if (out->o->verbose)
		fprintf(stderr, "%s: %s '%s': %.1f s, %llu samples, %llu bytes\n", diag_progname(), what, path,
			(double)(to - from) / 1e9, (unsigned long long)samples, (unsigned long long)bytes);
}

/* Ends the file being written at now and goes on in the next. */
static int next_file(struct output *out, struct trace_writer *w, uint64_t now)
{
	uint32_t n = out->part + 1;
	char *path = part_name(out->o->out_path, n);
	uint64_t samples = trace_writer_samples(w) - out->file_samples;
	int fd = open_part(out, path), r;

	if (fd < 0) {
		/* The file being written is whole: the recording goes on in
		 * it, no longer cut. */
		warning("cannot create '%s': %s; the recording goes on in '%s', no longer cut", path,
			create_why(errno), out->path);
		out->stuck = 1;
		free(path);
		return 0;
	}
	r = trace_writer_switch(w, fd, now);
	if (r < 0 && trace_writer_fd(w) != fd) {
		/* The file being written could not be finished: it is the
		 * short one, and the next was never begun. */
		close(fd);
		unlink(path);
		free(path);
		return r;
	}
	told(out, "switch", out->path, out->part, out->file_start, now, samples, file_size(out->fd));
	close(out->fd);
	free(out->path);
	out->path = path;
	out->fd = fd;
	out->part = n;
	out->file_start = now;
	out->file_samples = trace_writer_samples(w);
	if (out->o->max_files && n - out->first >= out->o->max_files) {
		char *old = part_name(out->o->out_path, out->first++);

		unlink(old);
		free(old);
	}
	return r;
}

/* Writes the ring's window to path (fd), with end if the recording
 * ended. A snapshot that fails is said, and the recording goes on. */
static int snapshot(struct output *out, struct trace_writer *w, const char *path, int fd, uint64_t now,
		    const struct trace_end *end)
{
	struct trace_ring_stats rs;
	int r;

	r = trace_writer_snapshot(w, fd, now, end);
	if (r == 0 && fsync(fd) < 0 && errno != EINVAL)
		r = -errno;
	if (r < 0) {
		error("cannot write the snapshot '%s': %s; %s", path, prof_strerror(r),
		      file_size(fd) ? "what it holds is short" : "it is empty");
		return r;
	}
	trace_writer_ring_stats(w, &rs);
	told(out, "snapshot", path, end ? 0 : rs.snapshots, rs.from, rs.to, rs.samples, file_size(fd));
	if (!out->o->quiet && !end)
		fprintf(stderr, "%s: snapshot '%s': the last %.1f s, %llu samples\n", diag_progname(), path,
			rs.to > rs.from ? (double)(rs.to - rs.from) / 1e9 : 0.0, (unsigned long long)rs.samples);
	return 0;
}

int output_due(void *ctx, const struct trace_writer *w, uint64_t now)
{
	const struct output *out = ctx;
	const struct session_options *o = out->o;

	if (out->stuck)
		return 0;
	if ((unsigned)signals_asked != out->signals_done || out->queued)
		return 1;
	return out->part && !o->ring_ns &&
	       ((o->switch_ns && now - out->file_start >= o->switch_ns) ||
		(o->switch_bytes && trace_writer_file_bytes(w) >= o->switch_bytes));
}

int output_tick(void *ctx, struct trace_writer *w, uint64_t now)
{
	struct output *out = ctx;
	unsigned asked = (unsigned)signals_asked;
	char *path;
	int fd;

	/* One asked is done: each snapshot asked is one, and signals that
	 * came together make one switch. */
	if (asked != out->signals_done)
		out->signals_done = out->o->ring_ns ? out->signals_done + 1 : asked;
	else if (out->queued)
		out->queued--;
	if (!out->o->ring_ns)
		return next_file(out, w, now);
	path = part_name(out->o->out_path, out->part + 1);
	if ((fd = open_part(out, path)) >= 0) {
		out->part++;
		snapshot(out, w, path, fd, now, NULL);
		close(fd);
	} else {
		error("cannot create the snapshot '%s': %s; the recording goes on", path, create_why(errno));
	}
	free(path);
	return 0;
}

const char *output_ask(void *ctx, int switching)
{
	struct output *out = ctx;

	if (switching && out->o->ring_ns)
		return "the recording is a ring (--ring): ask for a snapshot";
	if (switching && !out->part)
		return "the recording is not rotated (--switch-output)";
	if (switching && out->stuck)
		return "the next file could not be created; the recording goes on in this one";
	if (!switching && !out->o->ring_ns)
		return "the recording is not a ring (--ring)";
	out->queued++;
	return NULL;
}

void output_crashed(void *ctx, uint32_t pid, int sig)
{
	struct output *out = ctx;

	if (!out->o->ring_ns || !out->o->snapshot_on_crash)
		return;
	if (!out->o->quiet)
		fprintf(stderr, "%s: process %u died of signal %d (%s): a snapshot follows\n", diag_progname(), pid,
			sig, strsignal(sig));
	out->queued++;
}

int output_finish(struct output *out, struct trace_writer *w, const struct trace_end *end)
{
	int r;

	if (out->o->ring_ns)
		r = snapshot(out, w, out->path, out->fd, end->time, end);
	else if ((r = trace_writer_finish(w, end)) == 0 && out->part)
		told(out, "switch", out->path, out->part, out->file_start, end->time,
		     trace_writer_samples(w) - out->file_samples, file_size(out->fd));
	if (r == 0)
		r = close(out->fd) < 0 ? -errno : 0;
	else
		close(out->fd);
	out->fd = -1;
	return r;
}

const char *output_path(const struct output *out)
{
	return out->path;
}

char *output_files(const struct output *out)
{
	char *first, *s;

	if (!out->part || out->o->ring_ns || out->part == out->first)
		return xasprintf("'%s'", out->path);
	first = part_name(out->o->out_path, out->first);
	s = xasprintf("%u files, '%s' to '%s'", out->part - out->first + 1, first, out->path);
	free(first);
	return s;
}

char *output_summary(const struct output *out, const struct trace_writer *w)
{
	struct trace_ring_stats rs;
	uint64_t samples = trace_writer_samples(w);
	char *files, *s;

	trace_writer_ring_stats(w, &rs);
	if (out->o->ring_ns)
		return xasprintf("wrote the last %.1f s (%llu samples) to '%s'",
				 rs.to > rs.from ? (double)(rs.to - rs.from) / 1e9 : 0.0,
				 (unsigned long long)rs.samples, out->path);
	files = output_files(out);
	s = xasprintf("%.1f bytes/sample, wrote %s",
		      samples ? (double)trace_writer_bytes(w) / (double)samples : 0.0, files);
	free(files);
	return s;
}

/* Removes path if this run made it or emptied it: a regular file, and
 * still the one fd has open (not a symlink's target, nor a file put
 * there since). */
static void discard_file(const char *path, int fd)
{
	struct stat fst, pst;

	if (fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) && lstat(path, &pst) == 0 &&
	    pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino)
		unlink(path);
}

void output_discard(struct output *out)
{
	if (out->fd >= 0 && out->ours)
		discard_file(out->path, out->fd);
	/* The files this run finished, or its snapshots. */
	for (uint32_t n = out->first; out->part && n <= out->part; n++) {
		char *path = part_name(out->o->out_path, n);

		if (strcmp(path, out->path))
			unlink(path);
		free(path);
	}
}

void output_free(struct output *out)
{
	if (!out)
		return;
	if (out->fd >= 0)
		close(out->fd);
	free(out->path);
	free(out);
}
