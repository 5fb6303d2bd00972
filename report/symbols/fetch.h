/*
 * fetch.h: debug files fetched by build-id from debuginfod servers.
 *
 * When DEBUGINFOD_URLS names servers, the locator (report/symbols/locate.h)
 * asks them for the debug file of an ELF image it found none for here,
 * through elfutils' libdebuginfod, the client the elfutils tools, gdb and
 * perf use. The library is loaded with dlopen() on the first fetch, as
 * elfutils' libdwfl loads it, so that a report that fetches nothing never
 * pays for it (nor for libcurl), and a machine without it only loses the
 * fetching. Fetched files land in the client's own cache
 * (DEBUGINFOD_CACHE_PATH, else its default), where later runs, gdb and
 * perf find them without asking again.
 *
 * The client's settings are honoured: DEBUGINFOD_TIMEOUT and
 * DEBUGINFOD_MAXSIZE by libdebuginfod, and here as well where it does not
 * enforce them (a server that never answers is retried by it, so that its
 * wait is several timeouts; an answer without a length is taken whatever
 * its size). Here, a fetch ends once no byte has come for
 * DEBUGINFOD_TIMEOUT seconds since it began, or once more than
 * DEBUGINFOD_MAXSIZE bytes have; and after one timeout no other fetch of
 * the run is tried, so a slow server costs a report one timeout.
 *
 * Each build-id is asked for once per fetch object; a later call gets the
 * first answer. Nothing here prints, and nothing here trusts the file: the
 * locator checks its build-id (objfile.h) and gives back, with
 * fetch_refuse(), a file it refuses, which leaves the cache.
 */
#ifndef REPORT_FETCH_H
#define REPORT_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/progress.h"

enum fetch_status {
	FETCH_OK,            /* fetched now: path is the file in the cache */
	FETCH_CACHED,        /* the client had it in its cache: no request */
	FETCH_NOT_FOUND,     /* no server has it (HTTP 404) */
	FETCH_MISSED_BEFORE, /* not asked: the cache records a recent miss */
	FETCH_REFUSED,       /* a server refused the connection */
	FETCH_UNREACHABLE,   /* a server's name did not resolve, or no route */
	FETCH_SERVER_ERROR,  /* a server answered an HTTP error other than 404 */
	FETCH_TIMEOUT,       /* no byte for DEBUGINFOD_TIMEOUT seconds */
	FETCH_TOO_BIG,       /* larger than DEBUGINFOD_MAXSIZE */
	FETCH_FAILED,        /* the transfer failed otherwise (see detail) */
	FETCH_GAVE_UP,       /* not asked: a fetch of this run timed out */
	FETCH_NO_LIBRARY,    /* not asked: libdebuginfod.so.1 cannot be loaded */
	FETCH_REFUSED_FILE,  /* fetched, but refused by the locator (detail) */
};

struct fetch_result {
	int status;           /* enum fetch_status */
	char *path;           /* FETCH_OK, FETCH_CACHED: the file; else NULL */
	char *server;         /* the server that answered, else the URLs asked */
	char *detail;         /* why, in words, where the status says too little */
	int http;             /* the HTTP status of a failed answer, or 0 */
	uint64_t bytes;       /* the file's size, once fetched */
	double seconds;       /* the time the fetch took */
	long timeout;         /* FETCH_TIMEOUT: the seconds waited */
	uint64_t maxsize;     /* FETCH_TOO_BIG: DEBUGINFOD_MAXSIZE */
};

struct fetch;

/* A fetcher for the servers of DEBUGINFOD_URLS, or NULL when it names
 * none (so that NULL means "do not fetch" everywhere). Nothing is loaded
 * yet. A fetch under way is the detail of progress (borrowed; NULL:
 * none), in the place of libdebuginfod's own DEBUGINFOD_PROGRESS lines.
 * Caller frees. */
struct fetch *fetch_new(struct progress *progress);
void fetch_free(struct fetch *f);

/* Asks for the debug file of the GNU build-id id (len bytes), or gives
 * the answer of an earlier call for it. Returns 0 when *out has a file
 * (FETCH_OK or FETCH_CACHED), else a negative errno-style code with *out
 * saying why. *out is borrowed until fetch_free(). */
int fetch_debuginfo(struct fetch *f, const uint8_t *id, size_t len, const struct fetch_result **out);

/* The file of r was refused (why, a heap string, is taken): it is removed
 * from the client's cache, so that no tool uses it and the next run asks
 * again, and r becomes FETCH_REFUSED_FILE. */
void fetch_refuse(struct fetch *f, const struct fetch_result *r, char *why);

/* The word for a status in 'info --json': "fetched", "not-found", ... */
const char *fetch_status_name(int status);

/* Appends what r says, in words, for 'prof-report info': "fetched from
 * URL (N bytes in T s)", "not found on URL (HTTP 404)", ... */
void fetch_describe(const struct fetch_result *r, struct buf *out);

/* The directory of the debuginfod client's cache, as libdebuginfod
 * chooses it: $DEBUGINFOD_CACHE_PATH, else ~/.debuginfod_client_cache if
 * it exists, else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client. NULL if none can be named. Caller frees. */
char *fetch_cache_dir(void);

#endif
