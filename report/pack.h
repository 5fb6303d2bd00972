/*
 * pack.h: symbol packs, so that a trace can be reported on where its debug
 * files are not.
 *
 * Making one: pack_build() asks a symbolizer for the frames of every
 * address the trace's samples use and keeps those it could name, keyed by
 * the image's identity and the link-time address looked up (a return
 * address minus one, as report/symbolize.h looks it up). The frames are
 * kept whole: the inline chain with files and lines, whatever --lines or
 * --no-inline a later report asks for. format/trace_syms.h writes them.
 *
 * Using them: a struct pack gathers the packs a report was given, in
 * order; the symbolizer asks it for any image whose debug file it did not
 * find, and the first pack that holds the image's identity serves it. An
 * identity that differs by a byte matches nothing, so a pack can never
 * name another build's code.
 */
#ifndef REPORT_PACK_H
#define REPORT_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"
#include "format/trace_syms.h"

struct symbolize;

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
void pack_add(struct pack *p, struct trace_syms *s, const char *origin, int own);

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
			 const struct trace_syms_frame **frames, char *const **strings);

/* What pack_build() put in its pack. */
struct pack_stats {
	size_t images;     /* identities with at least one address */
	size_t addrs;      /* addresses */
	size_t frames;     /* frames over all addresses */
};

/* Builds the pack of every address t's samples use that sym resolves: sym
 * must be made for t without --addresses, --no-inline or --lines. An
 * address that have (may be NULL) already holds is left out, so that a
 * trace's embedded pack is never written twice. Returns 0 and a new pack
 * in *out (caller frees with trace_syms_free()), with counts in *st. */
int pack_build(const struct trace *t, struct symbolize *sym, struct pack *have,
	       struct trace_syms **out, struct pack_stats *st);

#endif
