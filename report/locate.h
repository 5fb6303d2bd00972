/*
 * locate.h: which file on this machine serves an image of a trace.
 *
 * A trace names each image by path and identity (GNU build-id, Mach-O
 * UUID). The locator tries candidate files in a fixed order and accepts
 * the first whose identity matches the trace; a file whose identity
 * differs, or cannot be checked, is refused, because wrong names are worse
 * than none. Every path tried is recorded with why it was refused, so
 * 'prof-report info' can explain a missing symbolication.
 *
 * Candidates, in order, for an ELF image with a GNU build-id:
 *   1. the recorded path;
 *   2. /usr/lib/debug/.build-id/xx/rest.debug (under the debug root);
 *   3. each --symbols directory: DIR/xx/rest.debug, DIR/basename,
 *      DIR/basename.debug.
 * The build-id is always hex-encoded before it becomes part of a path, so
 * it can never contain '/' or "..".
 *
 * Library code: returns 0 or a negative error (locate_strerror()).
 */
#ifndef REPORT_LOCATE_H
#define REPORT_LOCATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/elf.h"
#include "format/trace.h"

enum locate_error {
	LOCATE_E_NOTFOUND = -3000, /* no candidate matched; see the tries */
	LOCATE_E_NOIDENT,          /* the trace records no identity to check */
	LOCATE_E_UNSUPPORTED,      /* an identity kind this build cannot read */
};

struct locate_opts {
	const char *const *symbol_dirs; /* --symbols directories (borrowed) */
	size_t nsymbol_dirs;
	const char *debug_root;         /* default "/usr/lib/debug"; "" disables */
};

/* One candidate file and its fate. */
struct locate_try {
	char *path;
	char *why;  /* NULL for the accepted file, else why it was refused */
};

/* A located, mapped and parsed debug or image file. Caller-owned storage:
 * locate_result_init() before, locate_result_release() after. */
struct locate_result {
	int found;
	char *path;             /* the accepted file, or NULL */
	const uint8_t *data;    /* the file, mapped read-only */
	size_t size;
	struct elf_file elf;    /* parsed; valid when found */
	struct locate_try *tries;
	size_t ntries;
};

const char *locate_strerror(int err);
void locate_result_init(struct locate_result *r);
void locate_result_release(struct locate_result *r);

/* Looks for a file matching img. Returns 0 with r->found set and the file
 * mapped, or a negative error with r->tries saying what was refused (and
 * r->found 0). r must have been initialised and is filled either way. */
int locate_image(const struct trace_image *img, const struct locate_opts *o,
		 struct locate_result *r);

/* Writes the hex of n bytes at p into out (2n+1 bytes). */
void locate_hex(char *out, const uint8_t *p, size_t n);

#endif
