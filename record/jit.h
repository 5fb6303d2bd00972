/*
 * jit.h: the names of the code a process's runtime compiles as it runs,
 * from the runtime's perf map and jitdump, kept in the trace as code
 * ranges (trace_writer_code()), so that the report names them after the
 * files are gone, on another machine.
 *
 * A struct jit follows one process. Each update (the loop's, every
 * 100 ms: never on the sampling path) reads what its files gained since
 * the last:
 *
 *  - the perf map, /tmp/perf-PID.map as the process sees it: in its root
 *    (/proc/PID/root) and with the pid its own namespace gives it (the
 *    last of /proc/PID/status's NSpid), a regular file owned by the
 *    process's user or root, and written since the process started (one
 *    written before is another process's of the same pid, left behind:
 *    V8 leaves its maps). The file is appended to, so it is read on
 *    from an offset, a line only once its newline is there; it may be
 *    rewritten, so a file shorter than the offset, or whose bytes before
 *    the offset changed, or another file at the path (a new inode), is
 *    read again from its start. Each range is stamped with the time it
 *    was read (0 for what was there when recording began).
 *  - each jitdump the process maps (jit-PID.dump, the pid again its own,
 *    which images_jitdumps() lists), opened as the process maps it
 *    (target_open_mapped()) and read on from an offset. A range is
 *    stamped with its record's time where that is the recorder's clock,
 *    CLOCK_MONOTONIC (the header does not say the CPU's counter, and no
 *    time lies ahead of the reading), else with the time it was read.
 *
 * The files are kept open once found, so the last update, when the
 * process has ended or the recording ends, reads what they gained since,
 * even from a process that is gone; one that was never found then is
 * looked for at /tmp when the process, gone, had our root and pid
 * namespace. Linux only (jit_linux.c); on macOS there is no update
 * (jit_darwin.c).
 */
#ifndef RECORD_JIT_H
#define RECORD_JIT_H

#include <stdint.h>

#include "format/trace.h"
#include "record/images.h"
#include "record/target.h"

/* What the updates of every process read, summed by the caller. */
struct jit_stats {
	uint64_t maps, dumps;             /* perf maps and jitdumps found */
	uint64_t map_ranges, dump_ranges; /* code ranges recorded from them */
	uint64_t bad_lines, bad_records;  /* malformed map lines, dump records */
	uint64_t cut;                     /* names cut to their cap */
	uint64_t dumps_unreadable;        /* jitdumps given up: a bad magic or size */
};

struct jit;

/* Follows the process t views (borrowed until jit_free()), which the
 * trace knows as process, for a recording that began at started (the
 * loop's clock). Reads its namespace's pid and user now, while it runs. */
struct jit *jit_new(struct target *t, uint32_t process, uint64_t started);
/* Adds what j read to *st. NULL is a no-op. */
void jit_add_stats(const struct jit *j, struct jit_stats *st);
void jit_free(struct jit *j);

/* Records, in w, the code ranges the process's perf map and jitdumps (in
 * im, its image table, updated by the caller) gained since the last
 * call, at now (0: at the recording's start). last: the process has
 * ended, or the recording ends: what the files hold is read, to a cap
 * higher than a round's.
 * Returns 0 or a negative trace_writer error; what cannot be read is no
 * error. */
int jit_update(struct jit *j, struct images *im, struct trace_writer *w, uint64_t now, int last);

#endif
