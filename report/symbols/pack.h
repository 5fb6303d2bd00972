/*
 * pack.h: symbol packs as a source of frames, for the images of a trace
 * whose debug files are not here.
 *
 * A struct pack gathers the packs a report was given, in order; the
 * symbolizer (report/symbols/symbolize.h) asks it for any image whose debug file
 * it did not find, and the first pack that holds the image's identity
 * serves it. An identity that differs by a byte matches nothing, so a pack
 * can never name another build's code. The same pack serves the image's
 * code, where it holds some (pack --asm). Source lines are the packs'
 * as a whole, keyed by path: the first pack that holds a file serves all
 * of its lines. Packs are made by report/output/pack_build.h;
 * format/trace_pack.h reads and writes them.
 */
#ifndef REPORT_PACK_H
#define REPORT_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"
#include "format/trace_pack.h"

/* The packs in use, and, per identity asked for, where its frames are. */
struct pack;
/* One image identity as one pack serves it. */
struct pack_image;

struct pack *pack_new(void);
/* Frees p, and the packs it owns; NULL is a no-op. */
void pack_free(struct pack *p);
/* Adds s under the name origin (copied; what 'info' shows), after the
 * packs added before. With own, p takes s and frees it; else s is
 * borrowed for p's life. */
void pack_add(struct pack *p, struct trace_pack *s, const char *origin, int own);

/* The first pack's frames for img's identity, or NULL if no pack has any.
 * Borrowed until pack_free(). */
const struct pack_image *pack_find(struct pack *p, const struct trace_image *img);
/* The origin of the pack that serves pi, and the addresses it holds. */
const char *pack_image_origin(const struct pack_image *pi);
size_t pack_image_naddrs(const struct pack_image *pi);
/* The frames at link-time address at, innermost first: returns how many
 * (0 if the pack does not have the address) and points *frames at them
 * and *strings at the table their indexes refer to. Borrowed. */
size_t pack_image_lookup(const struct pack_image *pi, uint64_t at,
			 const struct trace_pack_frame **frames, char *const **strings);
/* The addresses in [lo, hi) that the pack holds frames of, ascending,
 * at most max into out: returns how many. */
size_t pack_image_addrs(const struct pack_image *pi, uint64_t lo, uint64_t hi, uint64_t *out,
			size_t max);
/* The code at link-time address addr: returns how many of the size bytes
 * from addr the pack holds (0 if none), up to the end of the range that
 * holds addr, and points *code at them. Borrowed until pack_free(). */
size_t pack_image_code(const struct pack_image *pi, uint64_t addr, uint64_t size,
		       const uint8_t **code);

/* The range of code that holds link-time address addr, the extent of its
 * function: sets [*start, *end) and returns 0, or TRACE_E_USAGE. */
int pack_image_code_range(const struct pack_image *pi, uint64_t addr, uint64_t *start, uint64_t *end);

/* The origin of the first pack of p that holds lines of the source file
 * at path (the path the frames name), or NULL if none does. Borrowed
 * until pack_free(). */
const char *pack_source_origin(struct pack *p, const char *path);
/* The text of line (from 1) of the source file at path, without its
 * newline and NUL-terminated, its length in *len, from the first pack of
 * p that holds the file; NULL if none does, or that one lacks the line.
 * Borrowed until pack_free(). */
const char *pack_source_line(struct pack *p, const char *path, uint32_t line, size_t *len);

#endif
