/*
 * dwline.h: one unit's .debug_line table, DWARF 2 to 5: its file names
 * joined into paths and its program run into sorted address rows.
 *
 * Each sequence starts with file 1, as the standard (and GCC, and LLVM)
 * say, and the rows go into one array, not an allocation each. Every
 * length is checked against the bytes that remain: a damaged header
 * leaves the unit without lines, a damaged program ends its rows where
 * it breaks.
 */
#ifndef REPORT_DWLINE_H
#define REPORT_DWLINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "report/dwarf/dwsect.h"

/* The code from lo to hi (exclusive) is at this file, line and column. */
struct dwline_row {
	uint64_t lo, hi;        /* first: report/dwarf/dwspan.h searches rows */
	uint32_t file, line, column;
};

struct dwline {
	struct dwline_row *rows; /* sorted by lo, then hi, then line */
	size_t nrows;
	size_t *files;           /* per file number - filebase: an offset into
	                          * paths, or SIZE_MAX if the entry is unusable */
	const uint8_t **md5s;    /* per file: its DW_LNCT_MD5 (16 bytes,
	                          * borrowed from .debug_line), or NULL */
	uint32_t nfiles;
	int64_t filebase;        /* 0 in DWARF 5, 1 before */
	struct buf paths;        /* the joined paths, NUL-terminated */
};

/* Reads the table at off in t's .debug_line into l (zeroed first), its
 * paths joined with comp_dir (the unit's DW_AT_comp_dir, or NULL) as
 * llvm-symbolizer joins them. Release l with dwline_release(). */
void dwline_read(struct dwline *l, struct dwsect_table *t, uint64_t off, const char *comp_dir);
void dwline_release(struct dwline *l);

/* The row holding addr, or NULL. */
const struct dwline_row *dwline_find(const struct dwline *l, uint64_t addr);
/* The path of file number file, or NULL. Borrowed until dwline_release(). */
const char *dwline_file(const struct dwline *l, uint64_t file);
/* The MD5 of file number file's contents that the table gives (DWARF 5's
 * DW_LNCT_MD5, 16 bytes), or NULL. Borrowed from the section. */
const uint8_t *dwline_file_md5(const struct dwline *l, uint64_t file);

#endif
