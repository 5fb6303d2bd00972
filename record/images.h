/*
 * images.h: keeping the trace's image table in step with the target.
 *
 * A struct images remembers which mapped files have been recorded. Each
 * update re-reads the target's map; when its text changed (dlopen,
 * dlclose, exec), new files are identified and written as images with the
 * time they appeared, and vanished ones as unloaded.
 */
#ifndef RECORD_IMAGES_H
#define RECORD_IMAGES_H

#include <stdint.h>
#include <stddef.h>

#include "format/trace.h"
#include "record/target.h"

struct images;

struct images *images_new(struct target *t);
void images_free(struct images *im);
/* Re-reads the map and records what changed. now is 0 for the images
 * present at the start. Returns 0, or a negative trace_writer error; a map
 * that cannot be read (the process is gone) is not an error. */
int images_update(struct images *im, struct trace_writer *w, uint64_t now);
/* Whether addr lies in a recorded image (executable file mapping or vDSO)
 * that is still loaded. */
int images_covers(const struct images *im, uint64_t addr);
/* Images recorded so far. */
size_t images_count(const struct images *im);

#endif
