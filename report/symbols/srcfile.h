/*
 * srcfile.h: the source files that a trace's line tables name, found on
 * this machine or in a symbol pack, for showing the text of a line.
 *
 * A line table gives each file's path as it was at the build (the
 * compilation directory and the file's name, report/dwarf/dwline.h).
 * Sources move, so the candidates, in order, are:
 *   1. the path rewritten by the longest --source-map OLD=NEW whose OLD
 *      is a prefix of it that ends at a '/' (or is all of it), applied
 *      once: a map never applies to its own result, so no set of maps
 *      loops;
 *   2. the path itself;
 *   3. under each --source-dir DIR, the path's trailing components, the
 *      longest first (DIR/a/b/f.c, then DIR/b/f.c, then DIR/f.c);
 *   4. for Rust's standard library, built at /rustc/HASH/library/..., the
 *      same file under a toolchain's rust-src component: under
 *      $RUST_SRC_PATH (the library directory), then in each rustup
 *      toolchain whose channel manifest names the commit HASH, then in
 *      the toolchain of the rustc on PATH (nothing is run to find them);
 *   5. the text a symbol pack holds for the path (pack --sources).
 * A file is refused if it cannot be read, is not a regular file, holds a
 * NUL byte in its first 64 KiB (a binary file) or is bigger than
 * SRCFILE_MAX_FILE. Where the line table gives the file's MD5 (DWARF 5), a
 * file whose contents differ is passed over for a later candidate that
 * matches; if none does, the first is used, marked as not matching.
 * Every path tried is kept with its fate, for the report to name.
 *
 * Text is shown as read: a line ends at "\n" or "\r\n", and the last line
 * need not end at all. Library code: never prints.
 */
#ifndef REPORT_SRCFILE_H
#define REPORT_SRCFILE_H

#include <stddef.h>
#include <stdint.h>

#include "report/symbols/pack.h"

/* The largest source file read. */
#define SRCFILE_MAX_FILE (64u << 20)

struct srcfile_opts {
	const char *const *dirs;  /* --source-dir, in order (borrowed) */
	size_t ndirs;
	const char *const *maps;  /* --source-map OLD=NEW, as given (borrowed) */
	size_t nmaps;
	struct pack *pack;        /* symbol packs, for 5., or NULL (borrowed) */
};

/* Whether a file's contents are known to be those of the build. */
enum srcfile_match {
	SRCFILE_MATCH_UNKNOWN,     /* the line table gives no MD5 */
	SRCFILE_MATCH_MD5,         /* its MD5 is the line table's */
	SRCFILE_MATCH_DIFFERS,     /* its MD5 is not: the file changed since */
};

struct srcfile_try {
	char *path;
	char *why;                /* NULL for the file used */
};

struct srcfile_file {
	const char *want;         /* the path the line table gives */
	const char *path;         /* the file read, or NULL (none, or a pack's) */
	const char *pack;         /* the origin of the pack whose text is used,
	                           * or NULL */
	int match;                /* enum srcfile_match */
	uint32_t nlines;          /* lines in the file (0 for a pack's text,
	                           * which holds some lines only) */
	struct srcfile_try *tries;
	size_t ntries;
};

struct srcfile;

/* A source finder under o (copied; what it points to is borrowed until
 * srcfile_free()). Caller frees. */
struct srcfile *srcfile_new(const struct srcfile_opts *o);
void srcfile_free(struct srcfile *s);

/* Checks a --source-map argument: NULL if it has the form OLD=NEW with
 * OLD not empty, else why not. */
const char *srcfile_map_check(const char *arg);

/* The file for path, a line table's, whose contents should have MD5 md5
 * (16 bytes, or NULL if unknown): found and read on the first call for
 * path, then remembered. Never NULL: a file not found has path and pack
 * NULL and its tries say why. Borrowed until srcfile_free(). */
const struct srcfile_file *srcfile_find(struct srcfile *s, const char *path, const uint8_t *md5);

/* 1 the first time it is called for f, then 0: for telling the user
 * about a file once. */
int srcfile_first_sight(struct srcfile *s, const struct srcfile_file *f);

/* The text of line (from 1) of f, without its line ending: sets *len and
 * returns it (not NUL-terminated), or NULL if f has no such line (past
 * its end, or a pack that does not hold it). Borrowed until
 * srcfile_free(). */
const char *srcfile_line(struct srcfile *s, const struct srcfile_file *f, uint32_t line, size_t *len);

#endif
