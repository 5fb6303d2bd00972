/*
 * folded.h: the folded-stack text format of flamegraph.pl and inferno.
 *
 * One line per stack: the frames root first, joined by ';', a space, and
 * the sample count ("main;a;b 42"). So that a name can never forge a frame
 * boundary or a line, a byte of a name that is ';', '\\', a control byte
 * (0x00-0x1f) or DEL (0x7f) is written as "\xHH" (two lowercase hex
 * digits); everything else, spaces and UTF-8 included, is written as is.
 * flamegraph.pl splits the count off at the last space, so spaces in names
 * are safe. The escaping is reversible.
 */
#ifndef REPORT_FOLDED_H
#define REPORT_FOLDED_H

#include <stdio.h>

#include "common/buf.h"
#include "report/model/profile.h"

/* Appends name to b, escaped as above. */
void folded_escape(struct buf *b, const char *name);
/* Appends one line for st, with its newline, to b. */
void folded_line(struct buf *b, const struct profile_stack *st);
/* Writes every stack of p, in p's (sorted) order, to f. Returns 0, or
 * -EIO if f reports an error. */
int folded_write(FILE *f, const struct profile *p);

#endif
