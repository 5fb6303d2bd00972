/*
 * images.h: keeping the trace's image table in step with the target.
 *
 * A struct images remembers which mapped files have been recorded. Each
 * update re-reads the target's map; when its text changed (dlopen,
 * dlclose, exec), new files are identified and written as images with the
 * time they appeared, and vanished ones as unloaded. On Linux the map is
 * /proc/PID/maps (images_linux.c); on macOS it is dyld's image list
 * (images_darwin.c). The table of recorded images both keep, and what is
 * answered from it alone, is images.c's (images_base.h).
 */
#ifndef RECORD_IMAGES_H
#define RECORD_IMAGES_H

#include <stdint.h>
#include <stddef.h>

#include "format/trace.h"
#include "record/target.h"
#include "record/cfi.h"
#include "record/unwind.h"

struct images;

/* The images of t's process, which the trace knows as process (the id
 * given to trace_writer_process()). Tables of one recording made with
 * share, one made before, share its image ids (unique in the trace) and
 * its files' call-frame information; NULL for the first. */
struct images *images_new(struct target *t, uint32_t process, const struct images *share);
void images_free(struct images *im);
/* Re-reads the map and records what changed. now is 0 for the images
 * present at the start. The vDSO's functions (its symbol tables, read
 * from memory) are recorded with it as code ranges (trace_writer_code()),
 * as perf names them. A forked process's table (images_inherit()) has
 * them too. Returns 0, or a negative trace_writer error; a map
 * that cannot be read (the process is gone) is not an error. */
int images_update(struct images *im, struct trace_writer *w, uint64_t now);
/* A forked process's table begins as its parent's (from, which shares
 * with im): on Linux a copy, recorded as im's images loaded at now, which
 * reading its own map later finds there (so a child gone before its map
 * could be read has them); on macOS, where children are not followed,
 * its own dyld list, read. Returns 0 or a trace_writer error. */
int images_inherit(struct images *im, const struct images *from, struct trace_writer *w, uint64_t now);
/* Linux: the kernel reported an executable mapping m of the process at
 * now, from offset in its file: if the table has no image there, the map
 * is read again, and if it still shows none (the process ended before the
 * report was read), the mapping is recorded as an image from the report,
 * its file opened as target_open_mapped() does, and the images it
 * overlaps unloaded. Returns 0 or a trace_writer error. */
int images_mapped(struct images *im, struct trace_writer *w, uint64_t now, const struct target_mapping *m,
		  uint64_t offset);
/* Notes that a sample's frames fell in the images at addrs[0..n), for
 * images_keep(). */
void images_hit(struct images *im, const uint64_t *addrs, size_t n);
/* The files of the recording's images, each read once however many
 * processes map it, and of them the ones given a content hash, with the
 * bytes read to make them (Linux; 0 on macOS). */
void images_files(const struct images *im, uint64_t *files, uint64_t *hashed, uint64_t *hashed_bytes);
/* Makes images_keep() keep every file with samples. */
void images_keep_all(struct images *im);
/* Copies into the image cache at dir (format/trace_ident.h), by identity,
 * the file of every image with samples that cannot be found at its path
 * later (deleted, replaced, in another mount namespace), or, after
 * images_keep_all(), of every image with samples; then trims the cache to
 * max bytes, the least recently kept first. Calls note(ctx, path, err)
 * for each file: the copy's path, or on failure the file's and a negative
 * errno. Returns how many are in the cache. Linux. */
size_t images_keep(struct images *im, const char *dir, uint64_t max,
		   void (*note)(void *ctx, const char *path, int err), void *ctx);
/* Whether addr lies in a recorded image (executable file mapping or vDSO)
 * that is still loaded. */
int images_covers(const struct images *im, uint64_t addr);
/* The .eh_frame row for target address pc, from the image that covers it
 * (its file read and indexed on first use, and only if its build-id is
 * the recorded one). Returns 0, or a negative cfi_* error: no image, no
 * usable CFI, or none for the pc. row->expr is borrowed until
 * images_free(): tables are kept for the session. */
int images_cfi_row(struct images *im, uint64_t pc, struct cfi_row *row);
/* On macOS (images_darwin.c) there is no CFI: images_unwind_hooks() sets
 * only the return-address test, and the two CFI functions above do not
 * exist. */
/* Points cfg's return-address test and CFI lookup at im: a return address
 * lies in an image, just after a call instruction read from the target's
 * code; a pc's CFI row is images_cfi_row()'s; on Linux, a return address
 * must lie in an executable mapping (images_is_code()). Both modes unwind
 * so. */
void images_unwind_hooks(struct images *im, struct unwind_config *cfg);
/* The target im reads, borrowed. */
struct target *images_target(const struct images *im);
/* The is_return test of struct unwind_config on both platforms (ctx is
 * the struct images; images.c): addr lies in a recorded image, just after
 * an x86_64 call instruction read from the target's code. */
int images_is_return(void *ctx, uint64_t addr);
/* The is_code test of struct unwind_config (ctx is the struct images;
 * Linux): addr lies in an executable mapping of the process, file-backed
 * or not. The map is read again, now and then, for an address in none. */
int images_is_code(void *ctx, uint64_t addr);
/* Linux: the mappings of jitdump files (jit-PID.dump, which a runtime
 * maps executable for perf to find, record/jitdump.h) that the last read
 * of the map showed, at most max of them into maps, borrowed until the
 * next update: no image is recorded for them. Returns how many. */
size_t images_jitdumps(const struct images *im, const struct target_mapping **maps, size_t max);
/* Files whose CFI has been loaded so far (Linux). */
size_t images_cfi_loaded(const struct images *im);
/* Images recorded so far. */
size_t images_count(const struct images *im);

#endif
