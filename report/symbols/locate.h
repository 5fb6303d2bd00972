/*
 * locate.h: which file on this machine serves an image of a trace.
 *
 * A trace names each image by path and identity (GNU build-id, Mach-O
 * UUID). The locator tries candidate files in a fixed order and accepts
 * only files whose identity matches the trace; a file whose identity
 * differs, or cannot be checked, is refused, because wrong names are worse
 * than none. Among matching files, the first that carries DWARF wins; if
 * none does, the first match serves its symbol table. Every path tried is
 * recorded with its fate, so 'prof-report info' can explain the result.
 *
 * Candidates, in order, for an ELF image with a GNU build-id:
 *   1. the recorded path, then its copy in the image cache
 *      (format/trace_ident.h), if the recorder kept one;
 *   2. DEBUG_ROOT/.build-id/xx/rest.debug (DEBUG_ROOT is /usr/lib/debug);
 *   3. the .gnu_debuglink name of the recorded file, in the file's
 *      directory, its .debug/ subdirectory and DEBUG_ROOT/<directory>;
 *   4. the debuginfod client cache (fetch_cache_dir() of
 *      report/symbols/fetch.h), then <build-id>/debuginfo; an empty file
 *      there is the client's record of a miss, and no candidate;
 *   5. files under the --symbols directories with that identity; if none
 *      has it, those with the image's file name, so that the tries say
 *      which build each of them is;
 *   6. if none of those carries DWARF and the caller passed a fetcher
 *      (and one matched, when a pack would serve the image otherwise),
 *      the file a debuginfod server gives for the build-id: used only if
 *      its build-id matches, else removed from the client's cache.
 * For a Mach-O image: 1, then 5, where the files are dSYM bundles' DWARF
 * files, bare Mach-O files and universal files (whose matching slice is
 * the one used). For an ELF image named by Go's build ID or a content
 * hash: 1, then 5.
 *
 * An identity becomes part of a path only hex-encoded by us, and only if
 * trace_ident_valid() takes it.
 *
 * Library code: returns 0 or a negative LOCATE_E_* (common/errors.h) or
 * -errno, which prof_strerror() describes.
 */
#ifndef REPORT_LOCATE_H
#define REPORT_LOCATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"
#include "format/trace.h"
#include "report/symbols/fetch.h"
#include "report/symbols/objfile.h"

/* The files under the --symbols directories, by identity: scanned once. */
struct locate_index;

/* Scans dirs recursively (real directories only, never through a symlink
 * to one; at most 32 levels and 200000 files) and indexes every ELF and
 * Mach-O file by identity. Unreadable entries are skipped. Caller frees. */
struct locate_index *locate_index_new(const char *const *dirs, size_t ndirs);
void locate_index_free(struct locate_index *ix);

struct locate_opts {
	const struct locate_index *index; /* --symbols, or NULL */
	const char *debug_root;           /* NULL: /usr/lib/debug; "": none */
	const char *debuginfod_cache;     /* NULL: from the environment; "": none */
	const char *image_cache;          /* NULL: from the environment
	                                   * (trace_ident_cache_dir()); "": none */
	struct fetch *fetch;              /* ask debuginfod servers for what
	                                   * is not here (6.), or NULL */
	int packed;                       /* a symbol pack serves the image
	                                   * if no file does: fetch only in the
	                                   * place of a file without DWARF */
};

/* Where the accepted file came from. */
enum locate_origin {
	LOCATE_ORIGIN_DISK,    /* a file of this machine's, outside the cache */
	LOCATE_ORIGIN_CACHE,   /* the debuginfod client's cache */
	LOCATE_ORIGIN_SERVER,  /* fetched from a debuginfod server in this run */
};

/* One candidate file and its fate. */
struct locate_try {
	char *path;
	char *why;  /* NULL for the accepted file, else why it was not used */
};

/* The located file and the search. Caller-owned storage:
 * locate_result_init() before, locate_result_release() after. */
struct locate_result {
	int found;
	char *path;             /* the accepted file, or NULL */
	struct objfile obj;     /* open when found */
	struct locate_try *tries;
	size_t ntries;
	int origin;             /* enum locate_origin, when found */
	const struct fetch_result *fetched; /* the fetch of 6., if one was
	                         * asked for (borrowed from the fetcher) */
};

void locate_result_init(struct locate_result *r);
void locate_result_release(struct locate_result *r);

/* Looks for a file matching img. Returns 0 with r->found set and the file
 * open in r->obj, or a negative error with r->tries saying what was
 * refused. r must have been initialised and is filled either way. */
int locate_image(const struct trace_image *img, const struct locate_opts *o,
		 struct locate_result *r);

/* The path of img's copy in the image cache dir (as locate_opts'
 * image_cache: NULL, from the environment; "", none), if there is a file
 * there, else NULL. Its identity is not checked. Caller frees. */
char *locate_image_copy(const struct trace_image *img, const char *dir);

#endif
