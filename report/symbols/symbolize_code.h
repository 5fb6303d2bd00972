/*
 * symbolize_code.h: the code of a trace image's functions, from the files
 * the symbolizer located for it.
 *
 * These two functions belong to report/symbols/symbolize.h, where
 * annotate's symbolizer declares them; they are declared here, and defined
 * in symbolize_code.c, only until it is merged, when both files go and
 * their callers include symbolize.h alone.
 */
#ifndef REPORT_SYMBOLIZE_CODE_H
#define REPORT_SYMBOLIZE_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "report/symbols/symbolize.h"

/* The bytes of image i's code at link-time addresses [addr, addr + size),
 * from its files: returns how many there are from addr (0 if none), with
 * *code pointing at them (borrowed until symbolize_free()), *arch the
 * file's enum trace_arch and *from the path of the file. */
size_t symbolize_image_code(struct symbolize *s, size_t i, uint64_t addr, uint64_t size,
			    const uint8_t **code, int *arch, const char **from);
/* The link-time range [*lo, *hi) of the function of image i that holds
 * at, from its symbol table: returns 0, or a negative error if no file is
 * found or no symbol with a size holds at. */
int symbolize_image_function(struct symbolize *s, size_t i, uint64_t at, uint64_t *lo,
			     uint64_t *hi);

#endif
