/*
 * fetch.c: asking debuginfod servers, through libdebuginfod, for the
 * debug files this machine lacks.
 *
 * libdebuginfod is loaded on the first fetch and its functions looked up
 * by name, with the types its header gives them, so the program links
 * nothing of it. The library says little about a failure (a 404, a 500 and
 * a cut transfer all come back as -ENOENT), so each query writes its
 * verbose log into a memory file, whose last lines name the HTTP status or
 * curl's message; the words shown come from there. The library's
 * progress callback, called about once a second while a query runs, is
 * where the timeout and the size cap are held to when it does not hold
 * to them itself (see fetch.h).
 */
#include "report/symbols/fetch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/diag.h"
#include "format/trace.h"

#if defined(__linux__) && defined(__has_include)
#if __has_include(<elfutils/debuginfod.h>)
#define FETCH_LIBDEBUGINFOD 1
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <elfutils/debuginfod.h>
#endif
#endif

/* libdebuginfod's own default for DEBUGINFOD_TIMEOUT. */
#define FETCH_DEFAULT_TIMEOUT 90
/* How much of a query's verbose log is read back: its first lines and
 * its last. */
#define FETCH_LOG_HEAD 4096
#define FETCH_LOG_TAIL 65536

enum { ABORT_NONE, ABORT_TIMEOUT, ABORT_TOO_BIG };

struct fetch_entry {
	uint8_t id[TRACE_MAX_IDENT];
	size_t len;
	struct fetch_result r;
};

struct fetch {
	char *urls;
	long timeout;           /* seconds without a byte; 0: no bound */
	uint64_t maxsize;       /* bytes; 0: no cap */
	struct fetch_entry **v; /* by pointer: results are handed out */
	size_t n, cap;
	int gave_up;            /* a fetch timed out: ask no more */
	struct progress *progress;
#ifdef FETCH_LIBDEBUGINFOD
	int loaded;             /* dlopen() was tried */
	char *load_error;       /* why it failed, or NULL */
	void *lib;
	debuginfod_client *client;
	int log;                /* the verbose log's memory file, or -1 */
	__typeof__(&debuginfod_begin) begin;
	__typeof__(&debuginfod_end) end;
	__typeof__(&debuginfod_find_debuginfo) find_debuginfo;
	__typeof__(&debuginfod_set_progressfn) set_progressfn;
	__typeof__(&debuginfod_set_verbose_fd) set_verbose_fd;
	__typeof__(&debuginfod_get_url) get_url;
	/* the query under way */
	struct timespec began, last_byte;
	long bytes;
	int aborted;
#endif
};

/* A setting of libdebuginfod's as it reads it: a decimal number, where
 * anything else (or nothing) gives def. */
static long long env_number(const char *name, long long def)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !s[0])
		return def;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s)
		return def;
	return v;
}

struct fetch *fetch_new(struct progress *progress)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct fetch *f;
	long long v;

	if (!urls || !urls[strspn(urls, " \t\n")])
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->urls = xstrdup(urls);
	f->progress = progress;
	v = env_number("DEBUGINFOD_TIMEOUT", FETCH_DEFAULT_TIMEOUT);
	f->timeout = v > 0 ? (v > 86400 ? 86400 : (long)v) : 0;
	v = env_number("DEBUGINFOD_MAXSIZE", 0);
	f->maxsize = v > 0 ? (uint64_t)v : 0;
#ifdef FETCH_LIBDEBUGINFOD
	f->log = -1;
#endif
	return f;
}

void fetch_free(struct fetch *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i]->r.path);
		free(f->v[i]->r.server);
		free(f->v[i]->r.detail);
		free(f->v[i]);
	}
	free(f->v);
#ifdef FETCH_LIBDEBUGINFOD
	if (f->client)
		f->end(f->client);
	if (f->log >= 0)
		close(f->log);
	/* Never dlclose()d: libcurl, which it loaded, may have left handlers
	 * and threads behind, as libdwfl also assumes. */
	free(f->load_error);
#endif
	free(f->urls);
	free(f);
}

char *fetch_cache_dir(void)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH"), *home = getenv("HOME");
	struct stat st;
	char *legacy;

	if (env && env[0])
		return xstrdup(env);
	legacy = xasprintf("%s/.debuginfod_client_cache", home && home[0] ? home : "");
	if (home && home[0] && stat(legacy, &st) == 0)
		return legacy;
	free(legacy);
	if ((env = getenv("XDG_CACHE_HOME")) && env[0])
		return xasprintf("%s/debuginfod_client", env);
	if (home && home[0])
		return xasprintf("%s/.cache/debuginfod_client", home);
	return NULL;
}

/* Whether path is a file of the client's cache, the only files that are
 * ever removed here. */
static int in_cache(const char *path)
{
	char *dir = fetch_cache_dir();
	size_t n = dir ? strlen(dir) : 0;
	int yes = dir && n && !strncmp(path, dir, n) && path[n] == '/' && !strstr(path + n, "/../");

	free(dir);
	return yes;
}

static struct fetch_entry *entry_for(struct fetch *f, const uint8_t *id, size_t len, int *added)
{
	struct fetch_entry *e;

	for (size_t i = 0; i < f->n; i++)
		if (f->v[i]->len == len && !memcmp(f->v[i]->id, id, len)) {
			*added = 0;
			return f->v[i];
		}
	e = xcalloc(1, sizeof(*e));
	memcpy(e->id, id, len);
	e->len = len;
	f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof(*f->v));
	f->v[f->n++] = e;
	*added = 1;
	return e;
}

#ifdef FETCH_LIBDEBUGINFOD

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* The file the client keeps for a build-id (hex), a 0-byte one when its
 * last query found nothing. */
static char *cache_file(const char *hex)
{
	char *dir = fetch_cache_dir(), *path;

	if (!dir)
		return NULL;
	path = xasprintf("%s/%s/debuginfo", dir, hex);
	free(dir);
	return path;
}

static void hex_of(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = 0;
}

/* The fetcher whose query is under way, for the progress callback: one
 * query runs at a time, and the client gives the callback nothing else. */
static struct fetch *querying;

/* Called by libdebuginfod about once a second while a query runs, and as
 * data comes: a is a count of polls until an answer begins (b is 0 then),
 * afterwards the bytes so far, of b (-1 when the server gave no length).
 * A non-zero return ends the query. */
static int on_progress(debuginfod_client *c, long a, long b)
{
	struct fetch *f = querying;

	(void)c;
	if (!f)
		return 0;
	if (b != 0 && a > f->bytes) {
		f->bytes = a;
		clock_gettime(CLOCK_MONOTONIC, &f->last_byte);
	}
	if (f->progress) {
		char got[32], of[32], detail[128];

		if (b == 0) {
			snprintf(detail, sizeof(detail), "waiting for a debuginfod server, %.0f s",
				 since(&f->began));
		} else {
			progress_bytes((uint64_t)(a > 0 ? a : 0), got, sizeof(got));
			progress_bytes((uint64_t)(b > 0 ? b : 0), of, sizeof(of));
			snprintf(detail, sizeof(detail), "fetching %s%s%s from a debuginfod server", got,
				 b > 0 ? " of " : "", b > 0 ? of : "");
		}
		progress_detail(f->progress, detail);
	}
	if (f->maxsize && b != 0 && a > 0 && (uint64_t)a > f->maxsize)
		f->aborted = ABORT_TOO_BIG;
	else if (f->timeout && since(&f->last_byte) >= (double)f->timeout)
		f->aborted = ABORT_TIMEOUT;
	return f->aborted != ABORT_NONE;
}

static int load(struct fetch *f)
{
	if (f->loaded)
		return f->client ? 0 : -1;
	f->loaded = 1;
	/* RTLD_LOCAL: its names stay its own; RTLD_NOW: a missing one is
	 * known now, not at the first call. */
	if (!(f->lib = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();
		f->load_error = xasprintf("cannot load " DEBUGINFOD_SONAME " (Debian: libdebuginfod1): %s",
					  e ? e : "dlopen failed");
		return -1;
	}
#define FETCH_SYM(field, name) (*(void **)&f->field = dlsym(f->lib, name))
	FETCH_SYM(begin, "debuginfod_begin");
	FETCH_SYM(end, "debuginfod_end");
	FETCH_SYM(find_debuginfo, "debuginfod_find_debuginfo");
	FETCH_SYM(set_progressfn, "debuginfod_set_progressfn");
	FETCH_SYM(set_verbose_fd, "debuginfod_set_verbose_fd");
	FETCH_SYM(get_url, "debuginfod_get_url");
#undef FETCH_SYM
	if (!f->begin || !f->end || !f->find_debuginfo) {
		f->load_error = xstrdup(DEBUGINFOD_SONAME " lacks debuginfod_begin, "
					"debuginfod_find_debuginfo or debuginfod_end");
		return -1;
	}
	if (!(f->client = f->begin())) {
		f->load_error = xstrdup("debuginfod_begin() failed");
		return -1;
	}
	if (f->set_progressfn)
		f->set_progressfn(f->client, on_progress);
	if (f->set_verbose_fd && (f->log = memfd_create("debuginfod-log", MFD_CLOEXEC)) >= 0)
		f->set_verbose_fd(f->client, f->log);
	return 0;
}

/* What the query's verbose log says: whether a server was asked at all,
 * the HTTP status of an error answer, and curl's last message ("transfer
 * closed with N bytes remaining to read"). Lines are "url N TEXT", where
 * TEXT is the URL asked or, after a failure, curl's message. */
struct query_log {
	int asked;
	int http;
	char message[256];
};

/* Reads the log's lines from byte from to byte to into q. */
static void parse_log(struct fetch *f, off_t from, off_t to, struct query_log *q)
{
	char *text = xmalloc((size_t)(to - from) + 1), *line, *next;
	ssize_t got = pread(f->log, text, (size_t)(to - from), from);

	text[got > 0 ? got : 0] = 0;
	for (line = text; line && *line; line = next) {
		const char *rest, *code;

		if ((next = strchr(line, '\n')))
			*next++ = 0;
		if (!strncmp(line, "init server ", 12))
			q->asked = 1;
		if (strncmp(line, "url ", 4) || !(rest = strchr(line + 4, ' ')))
			continue;
		rest++;
		if (!strncmp(rest, "http://", 7) || !strncmp(rest, "https://", 8) ||
		    !strncmp(rest, "file://", 7))
			continue;
		if ((code = strstr(rest, "returned error: ")))
			q->http = atoi(code + 16);
		snprintf(q->message, sizeof(q->message), "%s", rest);
	}
	free(text);
}

/* The log's first lines say whether a server was asked; its last ones,
 * after any number of a server's header lines, how the query ended. */
static void read_log(struct fetch *f, struct query_log *q)
{
	off_t size;

	memset(q, 0, sizeof(*q));
	if (f->log < 0 || (size = lseek(f->log, 0, SEEK_END)) <= 0)
		return;
	if (size > FETCH_LOG_TAIL)
		parse_log(f, 0, FETCH_LOG_HEAD, q);
	parse_log(f, size > FETCH_LOG_TAIL ? size - FETCH_LOG_TAIL : 0, size, q);
}

/* The server part of a URL libdebuginfod fetched from: up to /buildid/. */
static char *server_of(const char *url)
{
	const char *b = strstr(url, "/buildid/");

	return b ? xasprintf("%.*s", (int)(b - url), url) : xstrdup(url);
}

static void query(struct fetch *f, const uint8_t *id, size_t len, struct fetch_result *r)
{
	char hex[2 * TRACE_MAX_IDENT + 1], *marker, *path = NULL;
	struct query_log q;
	struct stat st;
	int fd, had_file = 0, had_miss = 0;

	hex_of(hex, id, len);
	if ((marker = cache_file(hex)) && stat(marker, &st) == 0) {
		had_file = st.st_size > 0;
		had_miss = st.st_size == 0;
	}
	if (f->log >= 0 && ftruncate(f->log, 0) == 0)
		lseek(f->log, 0, SEEK_SET);
	clock_gettime(CLOCK_MONOTONIC, &f->began);
	f->last_byte = f->began;
	f->bytes = 0;
	f->aborted = ABORT_NONE;
	querying = f;
	fd = f->find_debuginfo(f->client, id, (int)len, &path);
	querying = NULL;
	r->seconds = since(&f->began);
	read_log(f, &q);
	if (fd >= 0) {
		const char *url = f->get_url ? f->get_url(f->client) : NULL;

		r->bytes = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
		close(fd);
		r->path = path;
		r->status = had_file || !q.asked ? FETCH_CACHED : FETCH_OK;
		r->server = url && q.asked ? server_of(url) : xstrdup(f->urls);
		/* Past the cap, however it came: what the cache held before is
		 * left alone, as libdebuginfod leaves it. */
		if (r->status == FETCH_OK && f->maxsize && r->bytes > f->maxsize) {
			r->status = FETCH_TOO_BIG;
			r->maxsize = f->maxsize;
			if (in_cache(path))
				unlink(path);
			free(r->path);
			r->path = NULL;
		}
		goto out;
	}
	free(path);
	r->server = xstrdup(f->urls);
	r->http = q.http;
	if (f->aborted == ABORT_TIMEOUT || fd == -ETIME) {
		r->status = FETCH_TIMEOUT;
		r->timeout = f->timeout;
	} else if (f->aborted == ABORT_TOO_BIG || fd == -EFBIG) {
		r->status = FETCH_TOO_BIG;
		r->maxsize = f->maxsize;
	} else if (fd == -ECONNREFUSED) {
		r->status = FETCH_REFUSED;
	} else if (fd == -EHOSTUNREACH) {
		r->status = FETCH_UNREACHABLE;
	} else if (q.http == 404) {
		r->status = FETCH_NOT_FOUND;
	} else if (q.http) {
		r->status = FETCH_SERVER_ERROR;
	} else if (fd == -ENOENT && !q.asked && had_miss) {
		r->status = FETCH_MISSED_BEFORE;
	} else if (q.message[0]) {
		r->status = FETCH_FAILED;
	} else if (fd == -ENOENT) {
		r->status = FETCH_NOT_FOUND;
	} else {
		r->status = FETCH_FAILED;
		r->detail = xstrdup(strerror(-fd));
	}
	if (!r->detail && q.message[0])
		r->detail = xstrdup(q.message);
	/* libdebuginfod 0.188 marks any failure that it reports as -ENOENT
	 * (a 500, a cut transfer, a query ended here) as a miss, and asks
	 * no server again for ten minutes: only a file the servers do not
	 * have keeps the mark, as its own timeouts and size refusals do. */
	if (r->status != FETCH_NOT_FOUND && !had_miss && marker && stat(marker, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(marker);
	if (r->status == FETCH_TIMEOUT)
		f->gave_up = 1;
out:
	free(marker);
}
#endif

int fetch_debuginfo(struct fetch *f, const uint8_t *id, size_t len, const struct fetch_result **out)
{
	static struct fetch_result no_id = { .status = FETCH_FAILED, .detail = "no build-id to ask for" };
	struct fetch_entry *e;
	struct fetch_result *r;
	int added;

	if (len == 0 || len > TRACE_MAX_IDENT) {
		*out = &no_id;
		return -EINVAL;
	}
	e = entry_for(f, id, len, &added);
	*out = r = &e->r;
	if (!added)
		goto done;
	if (f->gave_up) {
		r->status = FETCH_GAVE_UP;
		goto done;
	}
#ifdef FETCH_LIBDEBUGINFOD
	if (load(f) < 0) {
		r->status = FETCH_NO_LIBRARY;
		r->detail = xstrdup(f->load_error);
		goto done;
	}
	query(f, id, len, r);
#else
	r->status = FETCH_NO_LIBRARY;
	r->detail = xstrdup("this prof-report was built without libdebuginfod's header");
#endif
done:
	return r->status == FETCH_OK || r->status == FETCH_CACHED ? 0 : -ENOENT;
}

void fetch_refuse(struct fetch *f, const struct fetch_result *cr, char *why)
{
	struct fetch_result *r = NULL;

	for (size_t i = 0; i < f->n && !r; i++)
		if (&f->v[i]->r == cr)
			r = &f->v[i]->r;
	if (!r) {
		free(why);
		return;
	}
	if (r->path && in_cache(r->path))
		unlink(r->path);
	free(r->path);
	r->path = NULL;
	free(r->detail);
	r->detail = why;
	r->status = FETCH_REFUSED_FILE;
}

const char *fetch_status_name(int status)
{
	static const char *const names[] = {
		[FETCH_OK] = "fetched",
		[FETCH_CACHED] = "cached",
		[FETCH_NOT_FOUND] = "not-found",
		[FETCH_MISSED_BEFORE] = "missed-before",
		[FETCH_REFUSED] = "connection-refused",
		[FETCH_UNREACHABLE] = "unreachable",
		[FETCH_SERVER_ERROR] = "server-error",
		[FETCH_TIMEOUT] = "timeout",
		[FETCH_TOO_BIG] = "too-big",
		[FETCH_FAILED] = "failed",
		[FETCH_GAVE_UP] = "gave-up",
		[FETCH_NO_LIBRARY] = "no-library",
		[FETCH_REFUSED_FILE] = "file-refused",
	};

	if (status < 0 || (size_t)status >= sizeof(names) / sizeof(*names) || !names[status])
		return "unknown";
	return names[status];
}

void fetch_describe(const struct fetch_result *r, struct buf *out)
{
	const char *server = r->server ? r->server : "the servers";

	switch (r->status) {
	case FETCH_OK:
		buf_addf(out, "fetched from %s (%llu bytes in %.2f s), kept in the debuginfod cache", server,
			 (unsigned long long)r->bytes, r->seconds);
		return;
	case FETCH_CACHED:
		buf_addstr(out, "the debuginfod cache");
		return;
	case FETCH_NOT_FOUND:
		buf_addf(out, "not found on %s", server);
		if (r->http)
			buf_addf(out, " (HTTP %d)", r->http);
		return;
	case FETCH_MISSED_BEFORE:
		buf_addstr(out, "not asked: the debuginfod cache records that no server had it, a short "
				"while ago (the client asks again once cache_miss_s has passed)");
		return;
	case FETCH_REFUSED:
		buf_addf(out, "connection refused by %s (is the server running?)", server);
		return;
	case FETCH_UNREACHABLE:
		buf_addf(out, "cannot reach %s", server);
		break;
	case FETCH_SERVER_ERROR:
		buf_addf(out, "server error: HTTP %d from %s", r->http, server);
		return;
	case FETCH_TIMEOUT:
		buf_addf(out, "timed out: no data from %s for %ld s (DEBUGINFOD_TIMEOUT); no more "
			      "fetches in this run", server, r->timeout);
		return;
	case FETCH_TOO_BIG:
		if (r->maxsize)
			buf_addf(out, "too big: more than %llu bytes (DEBUGINFOD_MAXSIZE), from %s",
				 (unsigned long long)r->maxsize, server);
		else
			buf_addf(out, "too big (DEBUGINFOD_MAXSIZE), from %s", server);
		return;
	case FETCH_FAILED:
		buf_addf(out, "failed, from %s", server);
		break;
	case FETCH_GAVE_UP:
		buf_addstr(out, "not asked: a fetch timed out earlier in this run");
		return;
	case FETCH_NO_LIBRARY:
		buf_addstr(out, "not asked");
		break;
	case FETCH_REFUSED_FILE:
		buf_addf(out, "refused the file from %s, and removed it from the debuginfod cache", server);
		break;
	default:
		buf_addstr(out, "unknown");
		break;
	}
	if (r->detail)
		buf_addf(out, ": %s", r->detail);
}
