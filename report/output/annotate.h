/*
 * annotate.h: the source and instruction view of 'prof-report annotate',
 * as text and as JSON.
 *
 * For each function, its source lines with their samples: every line of
 * the function that has samples, with up to context lines around it, and
 * each longer run of lines without samples folded into one "..." row, as
 * git diff folds unchanged lines; the function's lines span from the
 * first to the last line its line table gives it. Code inlined at a line
 * is listed under it, indented, with the inlined function's name, place
 * and line. With instructions, every instruction of the function
 * follows, in address order, under a row of the source line it belongs to
 * whenever that line changes, as perf annotate lists them: address,
 * bytes, disassembly and samples. A line is hot, and marked '*', when it
 * holds at least a tenth of the function's total samples.
 *
 * Shares are of the function's total samples: its lines' self shares sum
 * to its self share of itself. What cannot be shown is said through
 * note(), once: a source not found (with every path tried), one that does
 * not match the build (its MD5 differs, or it is shorter than its line
 * table says), code whose bytes are not here.
 */
#ifndef REPORT_ANNOTATE_OUT_H
#define REPORT_ANNOTATE_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "report/model/annotate.h"
#include "report/symbols/srcfile.h"
#include "report/symbols/symbolize.h"

struct annotate_write_opts {
	size_t context;           /* lines of context around sampled lines */
	int instructions;         /* --asm */
	struct symbolize *sym;    /* the symbolizer the model's frames are from */
	struct srcfile *source;
	void (*note)(const char *msg); /* told what cannot be shown */
};

/* Writes the n functions fns (of a) to f as text. Returns 0, or -EIO if
 * f reports an error. */
int annotate_write(FILE *f, const struct annotate *a, const struct annotate_fn *const *fns, size_t n,
		   const struct annotate_write_opts *o);
/* Writes them as annotate's JSON document (prof-json(5)): per function
 * its name, image, file, self and total, its source (the file used, how
 * it matches, each path tried), and each line with samples (file, line,
 * self, total, its text if found, and what was inlined there, the same
 * way); with instructions, every instruction (address, bytes, text,
 * self, total, file, line). Returns 0, or -EIO. */
int annotate_write_json(FILE *f, const struct annotate *a, const struct annotate_fn *const *fns,
			size_t n, const struct annotate_write_opts *o);

#endif
