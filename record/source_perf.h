/*
 * source_perf.h: the perf_event source of samples, on Linux.
 *
 * Instead of stopping threads on a clock of its own (source_tick.c),
 * the kernel samples each thread of the target while it runs on a CPU,
 * with inherited events on every online CPU, one ring buffer per CPU,
 * drained into the same loop (every such sample's state is RUNNING). The
 * struct target is untraced (target_*_untraced()): no thread is stopped
 * or traced; new threads, renames, execs and ends come from the kernel's
 * records. Implemented in source_perf_linux.c.
 */
#ifndef RECORD_SOURCE_PERF_H
#define RECORD_SOURCE_PERF_H

#include <sys/types.h>

#include "common/errors.h" /* SOURCE_PERF_E_* */
#include "record/loop.h"

struct source_perf_options {
	uint32_t rate_hz;
	int kernel;             /* ticks in kernel mode too (TRACE_SAMPLE_KERNEL) */
	int launched;           /* the events start at the command's exec */
	int wall;               /* also the time off the CPU (needs kernel) */
	int follow;             /* the process's children too, and theirs */
};

/* Whether a cpu-mode event can be opened on process pid (0: on ourselves)
 * at rate_hz, in kernel mode too if kernel. Returns 0, or a negative errno
 * from perf_event_open(2) (-EACCES or -EPERM: refused, see
 * kernel.perf_event_paranoid; -ENOENT, -ENODEV, -ENOSYS: no perf_event
 * support) or SOURCE_PERF_E_RATE. */
int source_perf_probe(pid_t pid, uint32_t rate_hz, int kernel);
/* Opens the events on every thread t lists, on each online CPU, and their
 * ring buffers: a launched command's before it is let go, so that they
 * start at its exec. Returns 0 with the source in *out
 * (source_free() frees it), or a negative errno or SOURCE_PERF_E_*
 * code, nothing left open. */
int source_perf_new(struct target *t, const struct source_perf_options *o,
		    struct source **out);

#endif
