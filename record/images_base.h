/*
 * images_base.h: what the image tables of both platforms keep alike, for
 * images.c, images_linux.c and images_darwin.c only.
 *
 * Each platform's struct images begins with a struct images_base: the
 * target, the trace's id of its process, and the images recorded and
 * still loaded. Those are kept in one array of the platform's entries,
 * each of which begins with a struct image_span, so that images.c can
 * answer images_covers() and unload what an update no longer sees
 * whatever else a platform keeps of an image.
 */
#ifndef RECORD_IMAGES_BASE_H
#define RECORD_IMAGES_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"
#include "record/target.h"

/* A recorded image that is still loaded: the first member of each entry. */
struct image_span {
	uint64_t start, end;       /* its text */
	uint32_t id;               /* the trace's */
	int seen;                  /* by the update under way */
};

struct images_base {
	struct target *t;
	uint32_t process;          /* the trace's id of t's process */
	size_t recorded;           /* images recorded so far */
	void *k;                   /* nk entries of size bytes */
	size_t nk, cap, size;
	void (*release)(void *entry);  /* frees what an entry owns, or NULL */
};

/* Sets b up for t's process, known as process, with entries of size
 * bytes, each freed with release (NULL: they own nothing). */
void images_base_init(struct images_base *b, struct target *t, uint32_t process, size_t size,
		      void (*release)(void *entry));
/* Releases every entry and the array. */
void images_base_release(struct images_base *b);
/* The i'th entry (i < b->nk), borrowed until the table changes. */
void *images_base_at(const struct images_base *b, size_t i);
/* Appends a zeroed entry, counted as recorded, for the caller to fill.
 * Borrowed until the table changes. */
void *images_base_add(struct images_base *b);
/* Records the i'th image unloaded at now and drops it; the last entry
 * takes its place. Returns 0 or a trace_writer error. */
int images_base_unload(struct images_base *b, size_t i, struct trace_writer *w, uint64_t now);
/* An update begins: no image has been seen yet. */
void images_base_unsee(struct images_base *b);
/* An update ends: the images it has not seen are unloaded at now.
 * Returns 0 or the first trace_writer error. */
int images_base_unload_unseen(struct images_base *b, struct trace_writer *w, uint64_t now);

#endif
